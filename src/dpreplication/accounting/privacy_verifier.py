"""Exact privacy verification of DaRRM_γ for any noise function γ (spec §1.1, §6, §7).

DaRRM_γ over K independent ``(ε, Δ)``-DP binary mechanisms is ``(mε, δ)``-DP iff for every
``(p_i, p'_i) ∈ F`` both output conditions hold (App. C.1)::

    f(p, p'; γ) ≤ e^{mε} − 1 + 2δ   (output 1),       −f(p, p'; γ) ≤ e^{mε} − 1 + 2δ   (output 0),

with ``f = Σ_l s_l (α_l − e^{mε} α'_l) γ(l)``. Because ``f`` is linear in each pair, checking
every multiset of vertices of F is exact (Lemma 5.1); the vertex set is closed under
swapping ``p ↔ p'``, so both orders of the neighbouring datasets are covered. Violations are
reported in the units of ``f``: ``violation = max(±f) − (e^{mε} − 1 + 2δ)``, which is twice the
largest ``Pr[A(D)=o] − e^{mε} Pr[A(D')=o] − δ``.

Independent cross-checks: :func:`brute_force_privacy_check` evaluates the DP inequalities
directly from output probabilities at random points of ``F^K`` (no use of ``f`` or of the
vertex reduction), :func:`verify_privacy_all_vertex_tuples` enumerates all ``V^K`` ordered
vertex tuples for small K, and :func:`iid_privacy_violation` scans a grid of F for i.i.d.
mechanisms (the setting of Theorem 4.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
from scipy import stats

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms.feasible_region import (
    feasible_interval,
    feasible_region_vertices,
    privacy_budget,
    sample_feasible_pairs,
    vertex_multisets,
)
from dpreplication.mechanisms.majority import (
    DARRM_RESULT_FIELDS,
    darrm_probability_one,
    majority_signs,
    poisson_binomial_pmf,
    validate_ensemble_size,
)
from dpreplication.validation import in_unit_interval, non_negative, positive, whole_number

UNIT_ROUNDOFF = float(np.finfo(float).eps) / 2
"""``u = 2⁻⁵³``: a float64 operation's relative rounding error is at most ``u``."""
VERTEX_LABELS = ("(0,0)", "(1,1)", "v5", "v6", "(D,0)", "(0,D)", "(1,1-D)", "(1-D,1)")

_DARRM_PARAMETERS = parameter_entries(
    """
    gamma : array_like of float, shape (K + 1,), entries in [0, 1]
        The noise function ``γ(0..K)`` (any γ, symmetric or not).
    K : int, positive and odd
        Number of mechanisms.
    m : float, m ≥ 0
        Target budget multiplier: the target is ``(mε, δ)``.
    epsilon : float, ε > 0
        ε of each mechanism.
    Delta : float, 0 ≤ Δ < 1
        δ of each mechanism (the spec's Δ).
    delta : float, 0 ≤ δ < 1
        δ of the target ``(mε, δ)``.
    """
)


def _target(m: float, epsilon: float, delta: float) -> None:
    """Check the target ``(mε, δ)``: ``m ≥ 0`` and ``ε ≥ 0`` finite, ``0 ≤ δ < 1``; ``ValueError`` otherwise."""
    non_negative("m", m)
    non_negative("epsilon", epsilon)
    in_unit_interval("delta", delta)


@dataclass(frozen=True)
@shared_parameters(DARRM_RESULT_FIELDS)
class PrivacyReport:
    """Worst case of the DaRRM privacy condition over all vertex multisets of F^K.

    Parameters
    ----------
    {K, m, epsilon, Delta}
    delta : float
        δ of the target ``(mε, δ)``.
    budget : float
        ``e^{mε} − 1 + 2δ``, the right-hand side of the condition.
    worst_cost : float
        ``max(±f)`` over all vertex multisets and both outputs.
    violation : float
        ``worst_cost − budget`` (``f`` units; ≤ 0 means private).
    worst_output : int, 0 or 1
        The output whose condition is tightest.
    worst_counts : dict
        Vertex label → multiplicity of the worst multiset (labels of :data:`VERTEX_LABELS`).
    n_multisets : int
        Number of vertex multisets checked.
    tolerance : float
        Threshold of :attr:`is_private`.
    """

    K: int
    m: float
    epsilon: float
    Delta: float
    delta: float
    budget: float
    worst_cost: float
    violation: float
    worst_output: int
    worst_counts: dict
    n_multisets: int
    tolerance: float

    @property
    def is_private(self) -> bool:
        """``violation ≤ tolerance``."""
        return self.violation <= self.tolerance

    @property
    def delta_excess(self) -> float:
        """``violation / 2``: the largest ``Pr[A(D)=o] − e^{mε}Pr[A(D')=o] − δ``, i.e. the extra δ needed.

        The spec quotes this unit, e.g. 1.99e-3 for γ ≡ 1, K=11, m=5, ε=0.1.
        """
        return 0.5 * self.violation


@shared_parameters(_DARRM_PARAMETERS)
def signed_gamma_sums(gamma, K: int, epsilon: float, Delta: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(A_t, A'_t) = (Σ_l s_l α^t_l γ(l), Σ_l s_l α'^t_l γ(l))`` for every vertex multiset ``t``.

    Then ``f_t = A_t − e^{mε} A'_t`` for any budget m, which makes budget searches cheap.

    Parameters
    ----------
    {gamma, K, epsilon, Delta}

    Returns
    -------
    tuple of numpy.ndarray
        ``(A, A')``, one entry per vertex multiset.

    Raises
    ------
    ValueError
        If ``K`` is not a positive odd integer or ``gamma`` does not have ``K + 1`` entries.
    """
    K = validate_ensemble_size(K)
    gamma = np.asarray(gamma, dtype=float)
    if gamma.shape != (K + 1,):
        raise ValueError(f"gamma must have K + 1 = {K + 1} entries, got {gamma.shape}")
    family = vertex_multisets(K, float(epsilon), float(Delta))
    weights = majority_signs(K) * gamma
    on_d = np.empty(family.n_rows)
    on_d_prime = np.empty(family.n_rows)
    for rows, alpha, alpha_prime in family.chunks():
        on_d[rows] = alpha @ weights
        on_d_prime[rows] = alpha_prime @ weights
    return on_d, on_d_prime


@shared_parameters(_DARRM_PARAMETERS)
def verify_privacy(
    gamma,
    K: int,
    m: float,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    tolerance: float = 1e-12,
) -> PrivacyReport:
    """Exact worst privacy cost of DaRRM_γ against the target ``(mε, δ)`` (any γ, both outputs).

    DaRRM_γ is ``(mε, δ)``-DP iff ``violation ≤ 0`` (exact by Lemma 5.1; module docstring).

    Parameters
    ----------
    {gamma, K, m, epsilon, Delta, delta}
    tolerance : float, ≥ 0
        Only sets :attr:`PrivacyReport.is_private`; the violation is reported as is.

    Returns
    -------
    PrivacyReport
        The worst multiset, its output and its violation.

    Examples
    --------
    >>> from dpreplication.accounting import verify_privacy
    >>> from dpreplication.mechanisms import gamma_majority, gamma_subsampling
    >>> verify_privacy(gamma_subsampling(11, 3), K=11, m=3, epsilon=0.1).violation <= 1e-12
    True
    >>> verify_privacy(gamma_majority(11), K=11, m=3, epsilon=0.1).violation > 0  # plain majority is not (3ε)-DP
    True
    """
    _target(m, epsilon, delta)
    non_negative("tolerance", tolerance)
    on_d, on_d_prime = signed_gamma_sums(gamma, K, epsilon, Delta)
    cost = on_d - np.exp(m * epsilon) * on_d_prime
    worst_one, worst_zero = int(np.argmax(cost)), int(np.argmin(cost))
    output, row = (1, worst_one) if cost[worst_one] >= -cost[worst_zero] else (0, worst_zero)
    worst = float(cost[row] if output == 1 else -cost[row])
    budget = privacy_budget(m, epsilon, delta)
    family = vertex_multisets(validate_ensemble_size(K), float(epsilon), float(Delta))
    counts = family.counts(np.array([row]))[0]
    labels = VERTEX_LABELS[: len(family.vertices)]
    return PrivacyReport(
        K=K,
        m=float(m),
        epsilon=float(epsilon),
        Delta=float(Delta),
        delta=float(delta),
        budget=budget,
        worst_cost=worst,
        violation=worst - budget,
        worst_output=output,
        worst_counts={label: int(n) for label, n in zip(labels, counts) if n},
        n_multisets=family.n_rows,
        tolerance=tolerance,
    )


@shared_parameters(_DARRM_PARAMETERS)
def effective_budget(
    gamma,
    K: int,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    m_max: float | None = None,
    tolerance: float = 1e-12,
    resolution: float = 1e-9,
) -> float:
    """Smallest real ``m`` for which DaRRM_γ is ``(mε, δ)``-DP (spec §7, "effective budget").

    Per multiset the violation is ``(±A_t + 1 − 2δ) − e^{mε}(±A'_t + 1)`` with ``|A'_t| ≤ 1``,
    hence non-increasing in m; bisection on ``[0, m_max]`` to ``resolution``, counting a
    violation ≤ ``tolerance`` plus its rounding bound ``(1 + e^{mε})(K + 2)u`` (``u`` the unit
    roundoff) as private. Without that bound the answer depended on the BLAS kernel: at K = 11,
    ε = 1 and m = K the rounding is about 1e-11, and γ = 1 came out ``inf`` instead of 6.

    Parameters
    ----------
    {gamma, K, epsilon, Delta, delta}
    m_max : float or None, m_max ≥ 0
        Upper end of the search; ``None``: ``K`` (every DaRRM_γ is a post-processing of all K
        mechanisms).
    tolerance : float, ≥ 0
        Largest violation (``f`` units) counted as private, beyond the rounding bound.
    resolution : float, > 0
        Width of the final bisection bracket.

    Returns
    -------
    float
        The smallest private ``m`` to within ``resolution`` (the upper end of the bracket); 0 if γ
        is private at ``m = 0`` and ``inf`` if not at ``m_max``.
    """
    _target(0.0 if m_max is None else m_max, epsilon, delta)
    non_negative("tolerance", tolerance)
    positive("resolution", resolution)
    on_d, on_d_prime = signed_gamma_sums(gamma, K, epsilon, Delta)

    def private(m):
        e = np.exp(m * epsilon)
        worst = max(float((on_d - e * on_d_prime).max()), float((e * on_d_prime - on_d).max()))
        return worst - privacy_budget(m, epsilon, delta) <= tolerance + (1.0 + e) * (K + 2) * UNIT_ROUNDOFF

    lo, hi = 0.0, float(K if m_max is None else m_max)
    if private(lo):
        return 0.0
    if not private(hi):
        return float("inf")
    while hi - lo > resolution:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if private(mid) else (mid, hi)
    return hi


@dataclass(frozen=True)
class BruteForceReport:
    """Largest DP-inequality gap found at random points of F^K (``f`` units and probability units).

    Parameters
    ----------
    max_violation : float
        ``2 · max_probability_gap``: the gap in the units of ``f``.
    max_probability_gap : float
        The largest ``Pr[A(D)=o] − e^{mε}Pr[A(D')=o] − δ`` found (either order of the neighbours).
    n_points : int
        Number of random points evaluated.
    worst_p : numpy.ndarray, shape (K,)
        ``p`` of the worst point.
    worst_p_prime : numpy.ndarray, shape (K,)
        ``p'`` of the worst point.
    """

    max_violation: float
    max_probability_gap: float
    n_points: int
    worst_p: np.ndarray
    worst_p_prime: np.ndarray


@shared_parameters(_DARRM_PARAMETERS)
def probability_gaps(gamma, p, p_prime, m: float, epsilon: float, delta: float) -> np.ndarray:
    """``max_o max(Pr[A(D)=o] − e^{mε}Pr[A(D')=o], Pr[A(D')=o] − e^{mε}Pr[A(D)=o]) − δ`` per row.

    Computed from the output probabilities of Algorithm 1, independently of ``f``.

    Parameters
    ----------
    {gamma}
    p : array_like of float, shape (..., K), entries in [0, 1]
        ``Pr[M_i(D) = 1]`` of each mechanism, one row per point.
    p_prime : array_like of float, shape (..., K), entries in [0, 1]
        ``Pr[M_i(D') = 1]``; each ``(p_i, p'_i)`` should lie in F.
    {m, epsilon, delta}

    Returns
    -------
    numpy.ndarray, shape (...)
        The gap per row (probability units; > 0 means a violation).
    """
    _target(m, epsilon, delta)
    one = darrm_probability_one(gamma, poisson_binomial_pmf(p))
    one_prime = darrm_probability_one(gamma, poisson_binomial_pmf(p_prime))
    return _largest_ratio_gap(one, one_prime, m, epsilon) - delta


def _largest_ratio_gap(one, one_prime, m: float, epsilon: float) -> np.ndarray:
    """``max_o max(Pr[A(D)=o] − e^{mε}Pr[A(D')=o], Pr[A(D')=o] − e^{mε}Pr[A(D)=o])`` from ``Pr[A = 1]``."""
    e = np.exp(m * epsilon)
    return np.maximum.reduce(
        [one - e * one_prime, (1 - one) - e * (1 - one_prime), one_prime - e * one, (1 - one_prime) - e * (1 - one)]
    )


@shared_parameters(_DARRM_PARAMETERS)
def brute_force_privacy_check(
    gamma,
    K: int,
    m: float,
    epsilon: float,
    Delta: float,
    delta: float,
    n_points: int,
    rng: np.random.Generator,
    near_vertex_fraction: float = 0.5,
    batch: int = 20_000,
) -> BruteForceReport:
    """Evaluate the DP inequalities of DaRRM_γ at ``n_points`` random ``(p, p') ∈ F^K``.

    Uniform and near-vertex draws (:func:`dpreplication.mechanisms.feasible_region.sample_feasible_pairs`).
    Never exceeds the exact :func:`verify_privacy` violation if the vertex reduction is right.

    Parameters
    ----------
    {gamma, K, m, epsilon, Delta, delta}
    n_points : int, ≥ 1
        Number of random points.
    rng : numpy.random.Generator
        Source of the random points.
    near_vertex_fraction : float, in [0, 1]
        Share of the points drawn near a vertex of F.
    batch : int, ≥ 1
        Points evaluated per batch (memory).

    Returns
    -------
    BruteForceReport
        The largest gap found and where.
    """
    whole_number("n_points", n_points, minimum=1)
    whole_number("batch", batch, minimum=1)
    best, best_p, best_q = -np.inf, None, None
    for start in range(0, n_points, batch):
        p, q = sample_feasible_pairs(min(batch, n_points - start), K, epsilon, Delta, rng, near_vertex_fraction)
        gaps = probability_gaps(gamma, p, q, m, epsilon, delta)
        i = int(np.argmax(gaps))
        if gaps[i] > best:
            best, best_p, best_q = float(gaps[i]), p[i], q[i]
    return BruteForceReport(2.0 * best, best, n_points, best_p, best_q)


@shared_parameters(_DARRM_PARAMETERS)
def verify_privacy_all_vertex_tuples(
    gamma, K: int, m: float, epsilon: float, Delta: float = 0.0, delta: float = 0.0
) -> float:
    """Violation (``f`` units) maximised over all ``V^K`` *ordered* vertex tuples (small K only).

    A check of the multiset reduction that uses neither vertex counts nor ``f``.

    Parameters
    ----------
    {gamma}
    K : int, positive and odd, with ``V^K ≤ 2·10⁶``
        Number of mechanisms.
    {m, epsilon, Delta, delta}

    Returns
    -------
    float
        The largest violation in the units of ``f`` (> 0 means not ``(mε, δ)``-DP).

    Raises
    ------
    ValueError
        If there are more than 2·10⁶ tuples.
    """
    vertices = feasible_region_vertices(epsilon, Delta)
    if len(vertices) ** K > 2_000_000:
        raise ValueError(f"{len(vertices)}^{K} tuples is too many for enumeration")
    index = np.array(list(product(range(len(vertices)), repeat=K)))
    points = vertices[index]
    return 2.0 * float(probability_gaps(gamma, points[..., 0], points[..., 1], m, epsilon, delta).max())


@shared_parameters(_DARRM_PARAMETERS)
def iid_privacy_violation(
    gamma, K: int, m: float, epsilon: float, Delta: float = 0.0, delta: float = 0.0, n_grid: int = 201
) -> float:
    """Violation (``f`` units) over a ``n_grid × n_grid`` grid of F with all mechanisms identical.

    ``p_i = p``, ``p'_i = p'`` (Theorem 4.1's setting). The grid includes the boundary of F.

    Parameters
    ----------
    {gamma, K, m, epsilon, Delta, delta}
    n_grid : int, ≥ 2
        Grid points per axis: ``p`` on ``[0, 1]``, ``p'`` on its feasible interval.

    Returns
    -------
    float
        The largest violation in the units of ``f`` over the grid.
    """
    _target(m, epsilon, delta)
    whole_number("n_grid", n_grid, minimum=2)
    p = np.linspace(0.0, 1.0, n_grid)
    lo, hi = feasible_interval(p, epsilon, Delta)
    q = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, n_grid)[None, :]
    p = np.broadcast_to(p[:, None], q.shape).ravel()
    q = q.ravel()
    l = np.arange(K + 1)
    alpha = stats.binom.pmf(l[None, :], K, p[:, None])
    alpha_prime = stats.binom.pmf(l[None, :], K, q[:, None])
    one = darrm_probability_one(gamma, alpha)
    one_prime = darrm_probability_one(gamma, alpha_prime)
    return 2.0 * float((_largest_ratio_gap(one, one_prime, m, epsilon) - delta).max())
