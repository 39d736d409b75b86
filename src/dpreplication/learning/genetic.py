"""PrivGene: differentially private model fitting by a genetic algorithm (Zhang et al., SIGMOD 2013).

Algorithm 1 of the paper as restated in the replication spec ``privgene.md`` §2.1–§2.6::

    Ω ← InitialCandidates(m)                               # §2.4: random + Ω⁺ + Ω⁻
    for i = 1 .. r-1:
        Ω' ← DP_Select(D, f, Ω, m', ε/r)                   # EEM or EM, §2.2–§2.3
        Ω  ← m/2 × Mutate(Crossover(two parents of Ω'))   # §2.5, scale s_i
    return DP_Select(D, f, Ω, 1, ε/r)

Guarantee (paper Lemma 1): ε-DP under replace-one neighbours. The data are touched only by
the ``r`` calls of ``DP_Select``, each ε/r-DP (:mod:`dpreplication.mechanisms.enhanced_exponential`,
with ``Δ`` computed from the public candidate set), so the total is ``r·(ε/r) = ε`` by
sequential composition; crossover, mutation and the intermediate selections are
post-processing. ``r = max(1, round(c·n·ε/m'))`` uses the public training size ``n``.

The fitness object (:mod:`dpreplication.learning.fitness`) fixes the geometry: candidate
length ``d``, domain ``[-bound, bound]``, whether the last coordinate is a bias (Ω± and
``mutate_bias``), and the crossover/mutation granularity ``block`` (1 for linear models, a
whole centre for k-means).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from dpreplication.mechanisms.enhanced_exponential import Dampening, Selector, dampening_factor, select
from dpreplication.validation import positive

TRACE_COLUMNS = [
    "iteration",
    "epsilon_spent",
    "mutation_scale",
    "delta1",
    "delta2",
    "delta_used",
    "selected_fitness_rank",
]


@dataclass(frozen=True)
class PrivGeneSettings:
    """Algorithm parameters (spec §2.6); every [inferred] choice of the spec is a field.

    Parameters
    ----------
    m : int, even, ≥ 2
        Candidates per generation.
    m_prime : int or None, m' ≥ 1
        Size ``m'`` of the selected set; ``None`` means the paper's pairing: 1 with EEM, 10 with EM.
    c : float, c > 0
        Constant of ``r = max(1, round(c·n·ε/m'))``.
    dampening : {"eem", "em"}
        ``Δ = min(Δ1, Δ2)`` (EEM, Eq. 6) or ``Δ1`` (EM, Eq. 7).
    selector : {"exponential_mechanism", "rnm_exp"}
        How each ``DP_Select`` draw is made (:func:`dpreplication.mechanisms.enhanced_exponential.select`).
    initial_scale : float, > 0
        s₁ as a fraction of one coordinate's domain width [paper].
    decay : float, in (0, 1]
        ``s_{i+1} = decay · s_i``, 0.95 by default (spec §2.5: multiplicative reading).
    schedule : {"multiplicative", "additive"}
        Reading of the mutation-scale schedule (:func:`mutation_scales`).
    mutate_bias : bool
        [inferred] The bias is a mutable coordinate.
    clip : bool
        [inferred] Clip offspring to the domain.
    constant_classifiers : int, ≥ 0
        ``|Ω⁺| = |Ω⁻|`` (0 disables them, an ablation).
    kmeans_mutation : {"centre", "coordinate"}
        [inferred, Fig. 1] A k-means mutation moves every coordinate of one centre, or one coordinate.
    distinct_parents : bool
        [inferred] Two different parents when ``|Ω'| ≥ 2``.

    Raises
    ------
    ValueError
        If ``m`` is not an even number ≥ 2 or ``c ≤ 0``.
    """

    m: int = 200
    m_prime: int | None = None
    c: float = 1.25e-3
    dampening: Dampening = "eem"
    selector: Selector = "exponential_mechanism"
    initial_scale: float = 0.05
    decay: float = 0.95
    schedule: Literal["multiplicative", "additive"] = "multiplicative"
    mutate_bias: bool = True
    clip: bool = True
    constant_classifiers: int = 10
    kmeans_mutation: Literal["centre", "coordinate"] = "centre"
    distinct_parents: bool = True

    def __post_init__(self):
        """Check ``m`` and ``c``."""
        if self.m < 2 or self.m % 2:
            raise ValueError(f"m must be an even number ≥ 2, got {self.m}")
        if self.c <= 0:
            raise ValueError(f"c must be positive, got {self.c}")

    @property
    def selected(self) -> int:
        """``m'``: the size of the selected set."""
        if self.m_prime is not None:
            return self.m_prime
        return 1 if self.dampening == "eem" else 10


@dataclass
class PrivGeneResult:
    """The released vector and the per-iteration record.

    ``omega`` and ``selected`` are outputs of ``DP_Select`` (covered by the ε-DP guarantee), and so
    are the trace's budget, mutation-scale, ``Δ1``, ``Δ2`` and ``Δ`` columns (functions of the public
    candidate sets). ``selected_fitness_rank`` is computed from the exact fitness scores on the
    training data: a non-private diagnostic, not to be released.

    Parameters
    ----------
    omega : numpy.ndarray, shape (d,)
        The released vector.
    selected : numpy.ndarray, shape (r, d)
        The first vector selected at each iteration.
    trace : pandas.DataFrame
        One row per iteration, columns :data:`TRACE_COLUMNS`.
    """

    omega: np.ndarray
    selected: np.ndarray
    trace: pd.DataFrame = field(repr=False)

    @property
    def iterations(self) -> int:
        """Number ``r`` of iterations run."""
        return len(self.trace)


def iterations(c: float, n: int, epsilon: float, m_prime: int) -> int:
    """``r = max(1, ⌊c·n·ε/m' + ½⌋)`` (paper §3, rounding half up [inferred, as DP-AGD]).

    Adult (n = 39,074) with EEM: r = 2, 5, 10, 20, 39, 49 at ε = 0.05 … 1 (spec §2.6).
    ``ValueError`` unless ε is positive and finite.
    """
    positive("epsilon", epsilon)
    return max(1, int(np.floor(c * n * epsilon / m_prime + 0.5)))


def mutation_scales(
    first: float, count: int, decay: float = 0.95, schedule: Literal["multiplicative", "additive"] = "multiplicative"
) -> np.ndarray:
    """``s_i``, ``i = 1..count``: ``s₁·decay^{i-1}`` (default) or ``s₁·(1 - (1-decay)(i-1))``.

    The additive reading reaches 0 at i = 21 (spec §2.5), so it is floored at 0.
    """
    steps = np.arange(count)
    if schedule == "multiplicative":
        return first * decay**steps
    if schedule == "additive":
        return np.maximum(first * (1.0 - (1.0 - decay) * steps), 0.0)
    raise ValueError(f"schedule must be 'multiplicative' or 'additive', got {schedule!r}")


def initial_candidates(fitness, settings: PrivGeneSettings, rng: np.random.Generator) -> np.ndarray:
    """``m`` starting vectors (paper §5.4, spec §2.4), data-independent.

    Linear models: ``m - 2·n±`` uniform on ``[-5, 5]^d``, then Ω⁺ (zero but ``β ~ U(0, 5]``)
    and Ω⁻ (``β ~ U[-5, 0)``), the constant classifiers. k-means: ``m`` uniform on
    ``[-1, 1]^{k·dim}``.
    """
    bound, d = fitness.bound, fitness.dimension
    plus_minus = settings.constant_classifiers if fitness.bias else 0
    random = rng.uniform(-bound, bound, size=(settings.m - 2 * plus_minus, d))
    constant = np.zeros((2 * plus_minus, d))
    magnitude = bound * (1.0 - rng.random(2 * plus_minus))  # in (0, bound]
    constant[:, -1] = np.concatenate([magnitude[:plus_minus], -magnitude[plus_minus:]])
    return np.vstack([random, constant])


def offspring(
    parents: np.ndarray, count: int, scale: float, fitness, settings: PrivGeneSettings, rng: np.random.Generator
) -> np.ndarray:
    """``count`` children of the selected set ``parents`` (Algorithm 1, lines 5–9; spec §2.5).

    Pairs of parents, one-point crossover at a cut ``d' ∈ {1..blocks-1}`` (block = one
    coordinate, or one centre for k-means) swapping the tails, then one mutation per
    child: ``±s`` on one coordinate (sign random, magnitude deterministic), or on every
    coordinate of one centre with independent signs (k-means, ``kmeans_mutation="centre"``).
    Children are clipped to the domain when ``settings.clip``.
    """
    pairs, d, block = count // 2, fitness.dimension, fitness.block
    blocks = d // block
    one = rng.integers(len(parents), size=pairs)
    if len(parents) >= 2 and settings.distinct_parents:
        other = (one + rng.integers(1, len(parents), size=pairs)) % len(parents)  # uniform over the others
    else:
        other = rng.integers(len(parents), size=pairs)
    first, second = parents[one], parents[other]
    cuts = rng.integers(1, blocks, size=pairs) if blocks > 1 else np.full(pairs, blocks)
    head = (np.arange(d) // block)[None, :] < cuts[:, None]
    children = np.vstack([np.where(head, first, second), np.where(head, second, first)])

    rows = np.arange(count)
    if block > 1 and settings.kmeans_mutation == "centre":
        centre = rng.integers(blocks, size=count)
        signs = rng.choice([-1.0, 1.0], size=(count, block))
        columns = centre[:, None] * block + np.arange(block)
        children[rows[:, None], columns] += scale * signs
    else:
        mutable = d if (settings.mutate_bias or not fitness.bias) else d - 1
        columns = rng.integers(mutable, size=count)
        children[rows, columns] += scale * rng.choice([-1.0, 1.0], size=count)
    if settings.clip:
        np.clip(children, -fitness.bound, fitness.bound, out=children)
    return children


def privgene(
    fitness, epsilon: float, settings: PrivGeneSettings, rng: np.random.Generator, n_iterations: int | None = None
) -> PrivGeneResult:
    """Run PrivGene (Algorithm 1) on ``fitness`` (built from the training data) with budget ``ε``.

    Guarantee: ε-DP under replace-one neighbours by sequential composition over the ``r``
    generations (paper Algorithm 1 and Lemma 1; module docstring): each ``DP_Select`` spends
    ``ε/r`` (paper Theorem 1 for EEM, Lemma 2 for EM; ``ε/(r·k)`` per draw when it draws ``k``),
    with ``Δ`` computed from the public candidate set; everything else is post-processing.
    Conditional on the data lying in the domain that the fitness's Δ bounds assume (features in
    ``[-1, 1]``, the task's labels), and for k-means on ``delta_factor = 2``
    (:class:`~dpreplication.learning.fitness.KMeansFitness`).

    Parameters
    ----------
    fitness : LogisticFitness, SVMFitness or KMeansFitness
        The fitting function ``f(D, ω)`` on the training data (:mod:`dpreplication.learning.fitness`).
    epsilon : float, ε > 0 and finite
        Total privacy budget.
    settings : PrivGeneSettings
        Algorithm parameters.
    rng : numpy.random.Generator
        Source of all randomness (initial candidates, breeding, selections).
    n_iterations : int or None, r ≥ 1
        Overrides ``r`` (Figs 6–7 run EM with EEM's r); by default
        ``r = iterations(c, n, ε, m')`` with ``n`` the number of training rows. The guarantee
        holds for any ``r`` fixed independently of the data.

    Returns
    -------
    PrivGeneResult
        The released vector, the vector selected at each iteration (for the per-iteration test
        error of Figs 6–7) and the trace of ``Δ1``, ``Δ2``, the ``Δ`` used, the mutation scale and
        the budget of every ``DP_Select``.

    Raises
    ------
    ValueError
        If ``epsilon`` is not positive and finite or ``r < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.learning import LogisticFitness, PrivGeneSettings, privgene
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (5000, 3)) / np.sqrt(3)
    >>> y = (X[:, 0] > 0).astype(float)
    >>> result = privgene(LogisticFitness(X, y), epsilon=1.0, settings=PrivGeneSettings(), rng=rng)
    >>> result.omega.shape, result.iterations  # r = max(1, round(c n ε / m'))
    ((4,), 6)
    """
    positive("epsilon", epsilon)
    k = settings.selected
    r = iterations(settings.c, fitness.size, epsilon, k) if n_iterations is None else int(n_iterations)
    if r < 1:
        raise ValueError(f"the number of iterations must be ≥ 1, got {r}")
    width = 2.0 * fitness.bound
    scales = mutation_scales(settings.initial_scale * width, max(r - 1, 1), settings.decay, settings.schedule)
    budget = epsilon / r

    candidates, parent = initial_candidates(fitness, settings, rng), None
    selected, rows = [], []
    for i in range(1, r + 1):
        last = i == r
        draws = 1 if last else min(k, len(candidates))
        scores = fitness.scores(candidates, parent=parent)
        delta1, delta2 = fitness.delta1(candidates), fitness.delta2(candidates, parent=parent)
        delta = dampening_factor(delta1, delta2, settings.dampening)
        chosen = select(scores, budget, delta, draws, rng, settings.selector)
        rank = int((scores > scores[chosen[0]]).sum())
        selected.append(candidates[chosen[0]].copy())
        rows.append((i, budget, np.nan if last else scales[i - 1], delta1, delta2, delta, rank))
        if not last:
            parents = candidates[chosen]
            candidates = offspring(parents, settings.m, scales[i - 1], fitness, settings, rng)
            parent = parents[0] if len(parents) == 1 else None
    trace = pd.DataFrame(rows, columns=TRACE_COLUMNS)
    return PrivGeneResult(omega=selected[-1], selected=np.array(selected), trace=trace)
