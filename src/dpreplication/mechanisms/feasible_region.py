"""The feasible region of one private binary mechanism, and DaRRM's privacy condition on it.

One ``(ε, Δ)``-DP mechanism with outputs in ``{0, 1}`` has ``(p, p') = (Pr[M(D) = 1],
Pr[M(D') = 1])`` in the region ``F`` cut out of ``[0, 1]²`` by the four DP inequalities (spec
§1.1); ``F`` is the convex hull of its vertices. DaRRM_γ is ``(mε, δ)``-DP iff the privacy cost
``f(p, p'; γ) = Σ_l s_l (α_l − e^{mε} α'_l) γ(l)`` stays within ``e^{mε} − 1 + 2δ`` (and so
does ``−f``) over ``F^K`` (App. C.1). ``f`` is linear in each pair, so its extremes sit on vertex
*multisets* (Lemma 5.1): :func:`vertex_multisets` enumerates them with their vote-count pmfs.
The optimiser (:mod:`dpreplication.optimisation.gamma_lp`) builds its constraints from them and
the verifier (:mod:`dpreplication.accounting.privacy_verifier`) checks γ against them and against
random points of ``F``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms.majority import DARRM_PARAMETERS, majority_signs, validate_ensemble_size
from dpreplication.numerics import row_chunks
from dpreplication.validation import RAISES, in_unit_interval, non_negative

_REGION_PARAMETERS = parameter_entries(
    """
    epsilon : float
        ε ≥ 0 of each binary mechanism, finite.
    Delta : float
        Δ of each binary mechanism, ``0 ≤ Δ ≤ 1`` (``ValueError`` otherwise).
    """
)

_TARGET_PARAMETERS = parameter_entries(
    """
    alpha_prime : array_like of shape (..., K + 1)
        Vote-count pmfs on ``D'``.
    m : float
        Budget multiple, ``m ≥ 0`` and finite: the target is ``(mε, δ)``-DP.
    epsilon : float
        ε ≥ 0 of each mechanism, finite.
    """
)


def _region(epsilon: float, Delta: float) -> None:
    """Check the parameters of F: ``ε ≥ 0`` finite, ``0 ≤ Δ ≤ 1`` (else the region leaves the unit square)."""
    non_negative("epsilon", epsilon)
    in_unit_interval("Delta", Delta, include_one=True)


def feasible_region_vertices(epsilon: float, Delta: float = 0.0) -> np.ndarray:
    """Vertices ``(p, p')`` of the region F of one ``(ε, Δ)``-DP binary mechanism (spec §1.1).

    Order: ``(0,0)``, ``(1,1)``, ``v5 = ((e^ε+Δ)/(1+e^ε), (1−Δ)/(1+e^ε))``, ``v6`` (its mirror
    image), then for ``Δ > 0`` also ``(Δ,0)``, ``(0,Δ)``, ``(1,1−Δ)``, ``(1−Δ,1)``.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 of each binary mechanism, finite.
    Delta : float
        Δ of each binary mechanism, ``0 ≤ Δ ≤ 1``.

    Returns
    -------
    ndarray of shape (V, 2)
        The ``V = 4`` (Δ = 0) or ``V = 8`` (Δ > 0) vertices.

    Raises
    ------
    ValueError
        If ε or Δ lies outside its range (the vertices would leave the unit square).
    """
    _region(epsilon, Delta)
    e = np.exp(epsilon)
    v5 = ((e + Delta) / (1 + e), (1 - Delta) / (1 + e))
    vertices = [(0.0, 0.0), (1.0, 1.0), v5, v5[::-1]]
    if Delta > 0:
        vertices += [(Delta, 0.0), (0.0, Delta), (1.0, 1.0 - Delta), (1.0 - Delta, 1.0)]
    return np.array(vertices, dtype=float)


@shared_parameters(_REGION_PARAMETERS)
def feasible_interval(p, epsilon: float, Delta: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``[lo, hi]`` of the ``p'`` with ``(p, p') ∈ F``: the four DP inequalities of spec §1.1.

    Parameters
    ----------
    p : float or array_like
        ``Pr[M(D) = 1] ∈ [0, 1]``.
    {epsilon, Delta}

    Returns
    -------
    tuple of ndarray
        ``(lo, hi)``, each of ``p``'s shape.
    """
    _region(epsilon, Delta)
    p = np.asarray(p, dtype=float)
    e = np.exp(epsilon)
    lo = np.maximum.reduce([np.zeros_like(p), (p - Delta) / e, 1.0 - e * (1.0 - p) - Delta])
    hi = np.minimum.reduce([np.ones_like(p), e * p + Delta, 1.0 - (1.0 - p - Delta) / e])
    return lo, hi


@shared_parameters(_REGION_PARAMETERS)
def feasible_region_boundaries(epsilon: float, Delta: float = 0.0) -> dict[str, tuple[str, Callable]]:
    """Return the four DP boundary lines of F as ``p' = b(p)``, labelled (a)–(d) in the spec's order.

    Parameters
    ----------
    {epsilon, Delta}

    Returns
    -------
    dict of str to tuple of (str, callable)
        ``label → (equation, b)`` (spec §1.1); ``b`` maps ``p`` to ``p'``.
    """
    _region(epsilon, Delta)
    e = np.exp(epsilon)
    return {
        "(a)": ("p = e^eps p' + Delta", lambda p: (p - Delta) / e),
        "(b)": ("p' = e^eps p + Delta", lambda p: e * p + Delta),
        "(c)": ("1 - p = e^eps (1 - p') + Delta", lambda p: 1.0 - (1.0 - p - Delta) / e),
        "(d)": ("1 - p' = e^eps (1 - p) + Delta", lambda p: 1.0 - e * (1.0 - p) - Delta),
    }


@shared_parameters(_REGION_PARAMETERS)
def sample_feasible_pairs(
    n: int,
    K: int,
    epsilon: float,
    Delta: float,
    rng: np.random.Generator,
    near_vertex_fraction: float = 0.5,
    near_vertex_radius: float = 0.05,
) -> tuple[np.ndarray, np.ndarray]:
    """Random ``(p, p') ∈ F^K``, shape ``(n, K)`` each.

    A fraction ``1 − near_vertex_fraction`` of the rows is drawn with ``p ∼ U[0,1]`` and ``p'``
    uniform on its feasible interval; the rest are ``v + t(u − v)`` for a random vertex ``v``,
    a random feasible point ``u`` and ``t ∼ U[0, near_vertex_radius]`` (F is convex).
    Not a mechanism: test points of F, the region of one ``(ε, Δ)``-DP binary mechanism (spec
    §1.1), at which DaRRM_γ's ``(mε, δ)``-DP condition (App. C.1) is checked.

    Parameters
    ----------
    n : int
        Number of rows, ``n ≥ 0``.
    K : int
        Number of mechanisms per row, ``K ≥ 1``.
    {epsilon, Delta}
    rng : numpy.random.Generator
        Source of the points.
    near_vertex_fraction : float
        Expected fraction of rows drawn near a vertex, in ``[0, 1]``.
    near_vertex_radius : float
        Largest ``t``, in ``[0, 1]`` (then the points stay in F by convexity).

    Returns
    -------
    tuple of ndarray
        ``(p, p')``, each of shape ``(n, K)``.
    """
    p = rng.random((n, K))
    lo, hi = feasible_interval(p, epsilon, Delta)
    q = lo + (hi - lo) * rng.random((n, K))
    near = rng.random(n) < near_vertex_fraction
    vertices = feasible_region_vertices(epsilon, Delta)
    v = vertices[rng.integers(0, len(vertices), size=(n, K))]
    t = near_vertex_radius * rng.random((n, K))
    p = np.where(near[:, None], v[..., 0] + t * (p - v[..., 0]), p)
    q = np.where(near[:, None], v[..., 1] + t * (q - v[..., 1]), q)
    return p, q


# --------------------------------------------------------------------------- constraint set


@dataclass(frozen=True)
class VertexMultisets:
    """Every multiset of ``K`` vertices of F, with the vote-count pmfs on ``D`` and ``D'``.

    Vertices ``(0,0)`` and ``(1,1)`` leave the pmf unchanged or shift it by one, so the
    multisets are stored as *states* (counts of the other vertices, total ``s ≤ K``) with their
    pmfs, plus the number ``n11 ∈ 0..K−s`` of mechanisms at ``(1,1)``; the rest sit at ``(0,0)``.
    Row ``(state, n11)`` has ``α_l = state_alpha[l − n11]``. Built by adding one Bernoulli at a
    time (count-based build, spec §1.4 pitfall 2): cost O(#states · K). Construct with
    :func:`vertex_multisets`.

    Parameters
    ----------
    K : int
        Number of mechanisms, odd, ``K ≥ 1``.
    epsilon : float
        ε ≥ 0 of each mechanism.
    Delta : float
        Δ of each mechanism, ``0 ≤ Δ ≤ 1``.
    vertices : ndarray of shape (V, 2)
        The vertices of F (:func:`feasible_region_vertices`), ``(0,0)`` and ``(1,1)`` first.
    state_counts : ndarray of int, shape (n_states, V − 2)
        Per state, how many mechanisms sit at each vertex other than ``(0,0)`` and ``(1,1)``.
    state_alpha : ndarray of shape (n_states, K + 1)
        Vote-count pmf on ``D`` of each state's mechanisms.
    state_alpha_prime : ndarray of shape (n_states, K + 1)
        The same on ``D'``.
    row_state : ndarray of int, shape (n_rows,)
        The state of each row.
    row_shift : ndarray of int, shape (n_rows,)
        ``n11`` of each row, ``0 ≤ n11 ≤ K − s``.
    """

    K: int
    epsilon: float
    Delta: float
    vertices: np.ndarray
    state_counts: np.ndarray
    state_alpha: np.ndarray
    state_alpha_prime: np.ndarray
    row_state: np.ndarray
    row_shift: np.ndarray

    @property
    def n_rows(self) -> int:
        """``C(K + V − 1, V − 1)``: 364 (K=11, Δ=0), 31,824 (K=11, Δ>0), 182,104 (K=101, Δ=0)."""
        return int(self.row_state.size)

    def counts(self, rows=slice(None)) -> np.ndarray:
        """Vertex counts ``(n_rows, V)`` in the order of ``vertices``.

        Parameters
        ----------
        rows : slice or array_like of int
            The rows to return.
        """
        state, shift = self.row_state[rows], self.row_shift[rows]
        free = self.state_counts[state]
        n00 = self.K - free.sum(axis=1) - shift
        return np.column_stack([n00, shift, free])

    def pmfs(self, rows=slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """``(α, α')`` of the selected rows, each ``(n, K+1)``.

        Parameters
        ----------
        rows : slice or array_like of int
            The rows to return.
        """
        state, shift = self.row_state[rows], self.row_shift[rows]
        index = np.arange(self.K + 1)[None, :] - shift[:, None]
        valid = index >= 0
        index = np.where(valid, index, 0)
        alpha = np.where(valid, self.state_alpha[state[:, None], index], 0.0)
        alpha_prime = np.where(valid, self.state_alpha_prime[state[:, None], index], 0.0)
        return alpha, alpha_prime

    def chunks(self, max_cells: int = 1 << 21):
        """Yield ``(slice, α, α')`` over all rows in memory-bounded chunks.

        Parameters
        ----------
        max_cells : int
            Most pmf entries per chunk, ``max_cells ≥ 1`` (a chunk has at least one row).
        """
        for start, stop in row_chunks(self.n_rows, self.K + 1, max_cells):
            rows = slice(start, stop)
            yield (rows, *self.pmfs(rows))


def _bernoulli_step(pmf: np.ndarray, p: float) -> np.ndarray:
    out = pmf * (1.0 - p)
    out[:, 1:] += pmf[:, :-1] * p
    return out


def _add_vertex_counts(counts, sums, alpha, alpha_prime, p, p_prime, K):
    """Extend every state by ``n = 0..K − sum`` mechanisms at vertex ``(p, p')``."""
    blocks_counts, blocks_sums, blocks_a, blocks_b = [], [], [], []
    n = 0
    while counts.shape[0]:
        blocks_counts.append(np.column_stack([counts, np.full(len(counts), n)]))
        blocks_sums.append(sums + n)
        blocks_a.append(alpha)
        blocks_b.append(alpha_prime)
        room = sums + n < K
        counts, sums = counts[room], sums[room]
        alpha = _bernoulli_step(alpha[room], p)
        alpha_prime = _bernoulli_step(alpha_prime[room], p_prime)
        n += 1
    return (
        np.concatenate(blocks_counts),
        np.concatenate(blocks_sums),
        np.concatenate(blocks_a),
        np.concatenate(blocks_b),
    )


@lru_cache(maxsize=8)
@shared_parameters(_REGION_PARAMETERS, DARRM_PARAMETERS)
def vertex_multisets(K: int, epsilon: float, Delta: float = 0.0) -> VertexMultisets:
    """All ``C(K+V−1, V−1)`` vertex multisets of F^K with their pmfs (Lemma 5.1 reduction).

    Cached per ``(K, ε, Δ)``: the pmfs do not depend on the budget ``m``.

    Parameters
    ----------
    {K, epsilon, Delta}

    Returns
    -------
    VertexMultisets
        Read-only arrays; ``n_rows = C(K+V−1, V−1)``.
    """
    K = validate_ensemble_size(K)
    vertices = feasible_region_vertices(epsilon, Delta)
    counts = np.zeros((1, 0), dtype=np.int64)
    sums = np.zeros(1, dtype=np.int64)
    alpha = np.zeros((1, K + 1))
    alpha[0, 0] = 1.0
    alpha_prime = alpha.copy()
    for p, p_prime in vertices[2:]:
        counts, sums, alpha, alpha_prime = _add_vertex_counts(counts, sums, alpha, alpha_prime, p, p_prime, K)
    room = K - sums
    row_state = np.repeat(np.arange(len(sums)), room + 1)
    row_shift = np.arange(row_state.size) - np.repeat(np.cumsum(room + 1) - (room + 1), room + 1)
    for array in (counts, alpha, alpha_prime, row_state, row_shift, vertices):
        array.setflags(write=False)
    return VertexMultisets(K, float(epsilon), float(Delta), vertices, counts, alpha, alpha_prime, row_state, row_shift)


def number_of_vertex_multisets(K: int, Delta: float) -> int:
    """``C(K+7, 7)`` if ``Δ > 0`` else ``C(K+3, 3)`` (spec §1.4).

    Parameters
    ----------
    K : int
        Number of mechanisms, ``K ≥ 0``.
    Delta : float
        Δ ≥ 0 of each mechanism (only whether ``Δ > 0`` matters).
    """
    n_vertices = 8 if Delta > 0 else 4
    return int(special.comb(K + n_vertices - 1, n_vertices - 1, exact=True))


@shared_parameters(_TARGET_PARAMETERS, RAISES)
def privacy_budget(m: float, epsilon: float, delta: float) -> float:
    """Right-hand side ``e^{mε} − 1 + 2δ`` of the DP condition ``f ≤ ·`` (spec §1.1).

    Parameters
    ----------
    {m, epsilon}
    delta : float
        Target δ, ``0 ≤ δ < 1``.

    {raises_out_of_range}
    """
    non_negative("m", m)
    non_negative("epsilon", epsilon)
    in_unit_interval("delta", delta)
    return float(np.expm1(m * epsilon) + 2.0 * delta)


@shared_parameters(_TARGET_PARAMETERS, DARRM_PARAMETERS)
def privacy_cost(gamma, alpha, alpha_prime, m: float, epsilon: float) -> np.ndarray:
    """``f(p, p'; γ) = Σ_l s_l (α_l − e^{mε} α'_l) γ(l)`` (App. C.1) for rows of pmfs.

    Valid for any (also asymmetric) γ. The output-0 condition is ``−f ≤ e^{mε} − 1 + 2δ``.

    Parameters
    ----------
    {gamma}
    alpha : array_like of shape (..., K + 1)
        Vote-count pmfs on ``D``.
    {alpha_prime, m, epsilon}

    Returns
    -------
    ndarray of shape (...)
        ``f`` per row.
    """
    non_negative("m", m)
    non_negative("epsilon", epsilon)
    alpha = np.asarray(alpha, dtype=float)
    weights = majority_signs(alpha.shape[-1] - 1) * np.asarray(gamma, dtype=float)
    return alpha @ weights - np.exp(m * epsilon) * (np.asarray(alpha_prime, dtype=float) @ weights)


@shared_parameters(_TARGET_PARAMETERS)
def folded_constraint_rows(alpha, alpha_prime, m: float, epsilon: float) -> np.ndarray:
    """Rows of the LP on ``x = γ((K+1)/2..K)``: ``R_j = r_l + r_{K−l}`` with ``r_l = s_l(α_l − e^{mε}α'_l)``.

    For symmetric γ, ``f = R · x`` (spec §1.4, "folding").

    Parameters
    ----------
    alpha : array_like of shape (..., K + 1)
        Vote-count pmfs on ``D``; ``K`` odd.
    {alpha_prime, m, epsilon}

    Returns
    -------
    ndarray of shape (..., (K + 1)/2)
        The rows ``R``.
    """
    non_negative("m", m)
    non_negative("epsilon", epsilon)
    difference = np.asarray(alpha) - np.exp(m * epsilon) * np.asarray(alpha_prime)
    half = difference.shape[-1] // 2
    return difference[..., half:] - difference[..., :half][..., ::-1]
