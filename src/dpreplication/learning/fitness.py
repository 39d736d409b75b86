"""PrivGene fitting functions ``f(D, ω) = h(ω) + Σ_t q(t, ω)`` and their EEM dampening bounds.

Zhang et al. (SIGMOD 2013), §5; replication spec ``privgene.md`` §2.3, §2.7–§2.8. Conventions
are those of :mod:`dpreplication.learning.models`: features ``x ∈ [-1, 1]^{d-1}`` without a
bias column, candidates ``ω = (α, β)`` with the bias last, labels ``y ∈ {0, 1}`` (LR) or
``{-1, +1}`` (SVM); a k-means candidate is ``k`` centres of ``[-1, 1]^dim`` flattened
centre by centre.

Every task scores a whole candidate set ``Ω`` (shape ``(m, d)``) with one matrix product
per chunk of rows (spec §2.8): ``Z = [X, 1] Ωᵀ``, then a fused elementwise pass while the
chunk is still in cache, summed in float64. Identical candidates (common after mutation of
one parent, spec §2.8 (c)) are scored once. Children bred from one parent (EEM, ``m' = 1``)
that differ from it in one ±1-valued coordinate are scored from the parent's margins in two
passes over the rows (:meth:`LinearFitness.scores`), the same sums up to rounding.

Dampening factors (spec §2.3, paper Eq. 7–8, 11, 13, 15, 16, 18) depend only on the public
candidate set. ``Δ1`` bounds twice the range of ``q(·, ω)`` over the tuple domain (plain
EM); ``Δ2`` bounds twice the largest ``q(t, ω) - q(t, ω')`` (EEM, Lemma 3).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy.spatial.distance import pdist

from dpreplication.learning.models import PRIVATE_SVM_C, squared_distances, with_bias

CHUNK_ROWS = 1024
"""Rows per matrix-product chunk: the chunk of ``Z`` (1024 × 200 doubles) stays in cache."""


def softplus_inplace(z: np.ndarray) -> np.ndarray:
    """``softplus(z) = max(z, 0) + log1p(exp(-|z|))``, overwriting ``z`` (stable for any ``z``)."""
    tail = np.abs(z)
    np.negative(tail, out=tail)
    np.exp(tail, out=tail)
    np.log1p(tail, out=tail)
    np.maximum(z, 0.0, out=z)
    z += tail
    return z


def max_pairwise_l1(candidates: np.ndarray) -> float:
    """``max_{ω, ω' ∈ Ω} ‖ω - ω'‖₁`` by exact pairwise distances (``O(m² d)``)."""
    candidates = np.asarray(candidates, dtype=float)
    return float(pdist(candidates, "cityblock").max()) if len(candidates) > 1 else 0.0


def _score_unique(candidates: np.ndarray, score) -> np.ndarray:
    """Apply ``score`` to the distinct rows of ``candidates`` and spread the values back."""
    unique, inverse = np.unique(candidates, axis=0, return_inverse=True)
    return score(unique)[inverse.ravel()]


class LinearFitness:
    """Shared machinery of the two linear tasks: design matrix, chunked scoring, Δ bounds.

    ``tuple_bound`` scales both dampening bounds: 1 for LR (Eq. 11, 13), ``C`` for the
    SVM (Eq. 15, 16).
    """

    bias = True
    block = 1
    bound = 5.0

    def __init__(self, features: np.ndarray, labels: np.ndarray, tuple_bound: float):
        self.design = with_bias(features)
        self.labels = np.asarray(labels, dtype=float)
        self.tuple_bound = float(tuple_bound)
        self.dimension = self.design.shape[1]
        self.size = self.design.shape[0]  # n, public under replace-one neighbours

    @cached_property
    def signed_columns(self) -> np.ndarray:
        """Which design columns have every entry ±1 (binary features, the bias)."""
        return np.all(np.abs(self.design) == 1.0, axis=0)

    def delta1(self, candidates: np.ndarray) -> float:
        """``Δ1 = 2·b·max_ω (‖ω‖₁ + 1)`` with ``b`` = 1 (LR, Eq. 11) or ``C`` (SVM, Eq. 15)."""
        return 2.0 * self.tuple_bound * float(np.abs(candidates).sum(axis=1).max() + 1.0)

    def delta2(self, candidates: np.ndarray) -> float:
        """``Δ2 = 2·b·max_{ω,ω'} ‖ω - ω'‖₁`` (LR Eq. 13; SVM Eq. 16, i.e. ``4Cs`` after one mutation)."""
        return 2.0 * self.tuple_bound * max_pairwise_l1(candidates)

    def scores(self, candidates: np.ndarray, parent: np.ndarray | None = None) -> np.ndarray:
        """``f(D, ω)`` for every row of ``candidates`` (float64).

        ``parent``: the one vector the candidates were bred from (EEM, ``m' = 1``). A
        candidate equal to it, or different from it in one coordinate whose design column
        is ±1, is then scored by :meth:`_one_step_sums`; the others by the matrix product.
        """
        candidates = np.asarray(candidates, dtype=float)
        if parent is None:
            return _score_unique(candidates, self._scores)
        parent = np.asarray(parent, dtype=float)
        return _score_unique(candidates, lambda unique: self._scores_near(parent, unique))

    def _scores_near(self, parent: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        change = candidates - parent
        moved = change != 0.0
        count = moved.sum(axis=1)
        column = moved.argmax(axis=1)
        near = (count == 0) | ((count == 1) & self.signed_columns[column])
        total = np.empty(len(candidates))
        if not near.all():
            total[~near] = self._scores(candidates[~near])
        if near.any():
            rows = np.flatnonzero(near)
            steps = change[rows, column[rows]]
            total[rows] = self.regulariser(candidates[rows]) + self._one_step_sums(parent, column[rows], steps)
        return total

    def _one_step_sums(self, parent: np.ndarray, columns: np.ndarray, steps: np.ndarray) -> np.ndarray:
        """``Σ_t q(t, ω + s·e_j)`` for each ``(j, s)``, ``j`` a ±1-valued column, from ``z = X̃ω``.

        Every row moves by ``±|s|``, so with ``Q±_t = q_t(z_t ± |s|)``:
        ``Σ_t q_t(z_t + s·x_tj) = ½ Σ_t (Q⁺_t + Q⁻_t) + ½ sign(s) Σ_t x_tj (Q⁺_t − Q⁻_t)``:
        two passes of ``q`` per step size and one product with ``X̃``, not one pass per candidate.
        """
        margins = self.design @ parent
        sizes, size_of = np.unique(np.abs(steps), return_inverse=True)
        level = np.empty(len(sizes))
        tilts = np.empty((len(self.design), len(sizes)))
        for index, size in enumerate(sizes):
            plus, minus = self._row_terms(margins + size), self._row_terms(margins - size)
            level[index] = 0.5 * (plus.sum() + minus.sum())
            np.subtract(plus, minus, out=tilts[:, index])
        tilt = tilts.T @ self.design  # (sizes, d)
        return level[size_of] + 0.5 * np.sign(steps) * tilt[size_of, columns]

    def _scores(self, candidates: np.ndarray) -> np.ndarray:
        transposed = np.ascontiguousarray(candidates.T)
        total = self.regulariser(candidates)
        for start in range(0, self.design.shape[0], CHUNK_ROWS):
            stop = start + CHUNK_ROWS
            total += self._chunk_sum(self.design[start:stop] @ transposed, start, stop)
        return total

    def regulariser(self, candidates: np.ndarray) -> np.ndarray:
        """Return the data-independent part ``h(ω)`` (a fresh array)."""
        return np.zeros(len(candidates))


class LogisticFitness(LinearFitness):
    """Logistic regression, paper Definition 1, Eq. 9: ``q(t, ω) = y z - log(1 + e^z)``, ``h = 0``.

    ``f = Σ_t [y_t z_t - softplus(z_t)]`` (spec §2.7) with ``y ∈ {0, 1}``.
    """

    task = "lr"

    def __init__(self, features: np.ndarray, labels: np.ndarray):
        super().__init__(features, labels, tuple_bound=1.0)

    def _chunk_sum(self, z: np.ndarray, start: int, stop: int) -> np.ndarray:
        fitted = self.labels[start:stop] @ z
        return fitted - softplus_inplace(z).sum(axis=0)

    def _row_terms(self, z: np.ndarray) -> np.ndarray:
        """``q(t, ω) = y z - softplus(z)`` for every row, from its margin ``z`` (a fresh array)."""
        return self.labels * z - softplus_inplace(z.copy())

    def tuple_scores(self, x: np.ndarray, y: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """``q(t, ω)`` for every tuple ``t = (x, y)`` and candidate: shape ``(n_tuples, m)``."""
        z = with_bias(x) @ np.asarray(candidates, dtype=float).T
        return np.asarray(y, dtype=float)[:, None] * z - np.logaddexp(0.0, z)


class SVMFitness(LinearFitness):
    """Linear SVM with hinge loss, paper Definition 2, Eq. 14 (``C = 10`` for private fits).

    ``q(t, ω) = -C max(0, 1 - y z)`` and ``h(ω) = -½‖α‖²`` (the bias is not
    regularised; ``h`` does not enter Δ), ``y ∈ {-1, +1}``.
    """

    task = "svm"

    def __init__(self, features: np.ndarray, labels: np.ndarray, C: float = PRIVATE_SVM_C):
        super().__init__(features, labels, tuple_bound=C)
        self.C = float(C)
        self.design *= self.labels[:, None]  # rows y·[x, 1], so that a product gives the margins y·z

    def regulariser(self, candidates: np.ndarray) -> np.ndarray:
        """``h(ω) = -½‖α‖²`` for every candidate, the bias left out (a fresh array)."""
        return -0.5 * np.einsum("ij,ij->i", candidates[:, :-1], candidates[:, :-1])

    def _chunk_sum(self, margins: np.ndarray, start: int, stop: int) -> np.ndarray:
        np.subtract(1.0, margins, out=margins)
        np.maximum(margins, 0.0, out=margins)
        return -self.C * margins.sum(axis=0)

    def _row_terms(self, margins: np.ndarray) -> np.ndarray:
        """``q(t, ω) = -C max(0, 1 - y z)`` for every row, from its margin ``y z`` (a fresh array)."""
        return -self.C * np.maximum(0.0, 1.0 - margins)

    def tuple_scores(self, x: np.ndarray, y: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """``q(t, ω) = -C max(0, 1 - y z)``: shape ``(n_tuples, m)``."""
        z = with_bias(x) @ np.asarray(candidates, dtype=float).T
        return -self.C * np.maximum(0.0, 1.0 - np.asarray(y, dtype=float)[:, None] * z)


class KMeansFitness:
    """k-means, paper Definition 3: ``q(t, C) = -min_i ‖t - c_i‖²``, ``h = 0``.

    A candidate is ``k`` centres flattened centre by centre (length ``k·dim``); the
    domain is ``[-1, 1]`` per coordinate, and crossover/mutation act on whole centres
    (``block = dim``). Only ``Δ1`` is known (paper §5.3): EEM reduces to EM.
    ``delta_factor`` is the factor 2 of Eq. 7 that the paper's Eq. 18 drops
    (spec §2.3 inconsistency 2; 1 reproduces Eq. 18 literally and is *not* ε-DP).
    """

    task = "kmeans"
    bias = False
    bound = 1.0

    def __init__(self, points: np.ndarray, k: int, delta_factor: float = 2.0, max_cells: int = 1 << 21):
        self.points = np.asarray(points, dtype=float)
        self.k = int(k)
        self.block = self.points.shape[1]
        self.dimension = self.k * self.block
        self.size = self.points.shape[0]
        self.delta_factor = float(delta_factor)
        self.max_cells = max_cells
        self.squared_norms = np.einsum("ij,ij->i", self.points, self.points)

    def centres(self, candidates: np.ndarray) -> np.ndarray:
        """Candidates ``(m, k·dim)`` as centres ``(m, k, dim)``."""
        return np.asarray(candidates, dtype=float).reshape(len(candidates), self.k, self.block)

    def delta1(self, candidates: np.ndarray) -> float:
        """``Δ1 = factor·max_{C ∈ Ω} min_{c ∈ C} Σ_j (1 + |c_j|)²`` (Eq. 18; ``max_t ‖t - c‖²`` on ``[-1,1]^dim``)."""
        farthest = ((1.0 + np.abs(self.centres(candidates))) ** 2).sum(axis=2)
        return self.delta_factor * float(farthest.min(axis=1).max())

    def delta2(self, candidates: np.ndarray) -> float:
        """Not derived in the paper (§5.3): ``+∞``, so that ``min(Δ1, Δ2) = Δ1``."""
        return np.inf

    def scores(self, candidates: np.ndarray, parent: np.ndarray | None = None) -> np.ndarray:
        """``f(D, C) = -Σ_t min_i ‖t - c_i‖²`` for every candidate (spec §2.8, chunked rows)."""
        return _score_unique(np.asarray(candidates, dtype=float), self._scores)

    def _scores(self, candidates: np.ndarray) -> np.ndarray:
        """Score by ``min_i ‖t - c_i‖² = ‖t‖² + min_i (‖c_i‖² - 2 t·c_i)``, in row chunks.

        The centres are laid out centre index first, so the minimum runs over contiguous slabs,
        and ``‖t‖²`` is added after it (rounding is monotone, so the result is the same to the last bit).
        """
        m = len(candidates)
        by_centre = candidates.reshape(m, self.k, self.block).transpose(1, 0, 2).reshape(-1, self.block)
        centre_norms = np.einsum("ij,ij->i", by_centre, by_centre)
        transposed = np.ascontiguousarray(by_centre.T)
        total = np.zeros(m)
        step = max(1, self.max_cells // len(by_centre))
        for start in range(0, self.points.shape[0], step):
            cross = self.points[start : start + step] @ transposed
            cross *= -2.0
            cross += centre_norms
            nearest = cross.reshape(len(cross), self.k, m).min(axis=1)
            nearest += self.squared_norms[start : start + step, None]
            total -= np.maximum(nearest, 0.0).sum(axis=0)
        return total

    def tuple_scores(self, points: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """``q(t, C)`` for every point and candidate: shape ``(n_points, m)`` (brute force)."""
        centres = self.centres(candidates)
        return np.stack([-squared_distances(np.asarray(points, dtype=float), c).min(axis=1) for c in centres], axis=1)
