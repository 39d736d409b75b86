"""PrivGene fitting functions ``f(D, ω) = h(ω) + Σ_t q(t, ω)`` and their EEM dampening bounds.

Zhang et al. (SIGMOD 2013), §5; replication spec ``privgene.md`` §2.3, §2.7–§2.8. Conventions
are those of :mod:`dpreplication.learning.models`: features ``x ∈ [-1, 1]^{d-1}`` without a
bias column, candidates ``ω = (α, β)`` with the bias last, labels ``y ∈ {0, 1}`` (LR) or
``{-1, +1}`` (SVM); a k-means candidate is ``k`` centres of ``[-1, 1]^dim`` flattened
centre by centre.

Every task scores a whole candidate set ``Ω`` (shape ``(m, d)``) with one matrix product
per chunk of rows (spec §2.8): ``Z = [X, 1] Ωᵀ``, then the elementwise passes while the
chunk is still in cache, summed in float64; identical candidates are scored once. The linear
tasks hold ``[X, 1]`` sparse where its columns are mostly one value
(:class:`~dpreplication.learning.design.BinaryDesign`). Children bred from one parent (EEM,
``m' = 1``), each at most one coordinate from it, are scored from the parent's margins: one or
two passes over the rows per distinct move (:meth:`LinearFitness.scores`), the same sums up to
rounding. The selections, and so every released model, have been bit-identical to those of the
plain matrix product in every comparison run (``tests/learning/test_genetic.py``,
``benchmarks/repetition_against.py``).

Dampening factors (spec §2.3, paper Eq. 7–8, 11, 13, 15, 16, 18) depend only on the public
candidate set. ``Δ1`` bounds twice the range of ``q(·, ω)`` over the tuple domain (plain
EM); ``Δ2`` bounds twice the largest ``q(t, ω) - q(t, ω')`` (EEM, Lemma 3).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist

from dpreplication.learning.design import BinaryDesign
from dpreplication.learning.models import PRIVATE_SVM_C, squared_distances, with_bias
from dpreplication.numerics import softplus_inplace

CHUNK_CELLS = 256 * 200
"""Entries of ``Z`` per matrix-product chunk: 256 rows of 200 candidates (400 KB) stay in a core's L2
cache through the elementwise passes (1024 such rows, 1.6 MB, took 1.4× the time with AVX2, 2.2×
with AVX-512)."""


def chunk_rows(candidates: int) -> int:
    """Rows per chunk for ``candidates`` columns: the power of two nearest below ``CHUNK_CELLS / candidates``."""
    return 1 << max(CHUNK_CELLS // max(candidates, 1), 1).bit_length() - 1


def max_pairwise_l1(candidates: np.ndarray, parent: np.ndarray | None = None) -> float:
    """``max_{ω, ω' ∈ Ω} ‖ω - ω'‖₁``, to the bits of the exact pairwise distances (``O(m² d)``).

    ``parent``: a vector that every candidate may be at most one coordinate away from (children of
    one parent, EEM with ``m' = 1``). When they are, the maximum is read from the moves in
    ``O(m d)`` (:func:`_max_l1_one_move`), to the same bits; otherwise the pairwise distances.
    """
    candidates = np.asarray(candidates, dtype=float)
    if len(candidates) < 2:
        return 0.0
    if parent is not None:
        change = candidates - np.asarray(parent, dtype=float)
        moved = change != 0.0
        if moved.sum(axis=1).max() <= 1:
            return _max_l1_one_move(candidates, change, moved)
    return float(pdist(candidates, "cityblock").max())


def _max_l1_one_move(candidates: np.ndarray, change: np.ndarray, moved: np.ndarray) -> float:
    """Return the largest L1 distance between rows each at most one coordinate from one parent.

    Two rows moved in different coordinates (or one not moved) are ``|Δ_a| + |Δ_b|`` apart, every
    other coordinate's difference being exactly 0; two rows moved in the same coordinate ``j`` are
    ``|ω_aj - ω_bj|`` apart. Rounded addition and subtraction are monotone, so the largest sum is
    that of the two coordinates with the largest moves (the unmoved rows count as one more
    coordinate, of move 0) and the largest difference within ``j`` is its ``max - min``: the same
    bits as the pairwise distances, whose other terms are exact zeros.
    """
    m, d = candidates.shape
    rows, column = np.arange(m), moved.argmax(axis=1)  # an unmoved row's move, 0, is read at column 0
    group = np.where(moved.any(axis=1), column, d)  # coordinate d: the rows equal to the parent
    largest_move = np.full(d + 1, -np.inf)
    np.maximum.at(largest_move, group, np.abs(change[rows, column]))
    second, first = np.sort(largest_move)[-2:]
    highest, lowest = np.full(d, -np.inf), np.full(d, np.inf)
    mover = group < d
    np.maximum.at(highest, column[mover], candidates[rows[mover], column[mover]])
    np.minimum.at(lowest, column[mover], candidates[rows[mover], column[mover]])
    within = (highest - lowest)[np.isfinite(highest)]
    return float(max(first + second, within.max(initial=0.0)))


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

    label_signed_rows = False
    """Whether the design's rows are ``y·[x, 1]`` (the SVM's margins) rather than ``[x, 1]``."""

    def __init__(self, features: np.ndarray, labels: np.ndarray, tuple_bound: float):
        self.labels = np.asarray(labels, dtype=float)
        design = with_bias(features)
        self.design = BinaryDesign.of(design, self.labels if self.label_signed_rows else None)
        self.tuple_bound = float(tuple_bound)
        self.size, self.dimension = design.shape  # n is public under replace-one neighbours
        self._last_parent = None  # (parent, its margins X̃ω): see _parent_margins

    @property
    def signed_columns(self) -> np.ndarray:
        """Which design columns have every entry ±1 (binary features, the bias)."""
        return self.design.signed

    def delta1(self, candidates: np.ndarray) -> float:
        """``Δ1 = 2·b·max_ω (‖ω‖₁ + 1)`` with ``b`` = 1 (LR, Eq. 11) or ``C`` (SVM, Eq. 15)."""
        return 2.0 * self.tuple_bound * float(np.abs(candidates).sum(axis=1).max() + 1.0)

    def delta2(self, candidates: np.ndarray, parent: np.ndarray | None = None) -> float:
        """``Δ2 = 2·b·max_{ω,ω'} ‖ω - ω'‖₁`` (LR Eq. 13; SVM Eq. 16, i.e. ``4Cs`` after one mutation).

        ``parent`` only makes it faster (:func:`max_pairwise_l1`): the value is the same.
        """
        return 2.0 * self.tuple_bound * max_pairwise_l1(candidates, parent)

    def scores(self, candidates: np.ndarray, parent: np.ndarray | None = None) -> np.ndarray:
        """``f(D, ω)`` for every row of ``candidates`` (float64).

        ``parent``: the one vector the candidates were bred from (EEM, ``m' = 1``). The candidates
        equal to it or one coordinate away from it (all of them, after one mutation each) are then
        scored from its margins (:meth:`_one_step_sums`); any other by the matrix product.
        """
        candidates = np.asarray(candidates, dtype=float)
        if parent is None:
            self._last_parent = None
            return _score_unique(candidates, self._scores)
        parent = np.asarray(parent, dtype=float)
        change = candidates - parent
        moved = change != 0.0
        near = moved.sum(axis=1) <= 1
        total = np.empty(len(candidates))
        if not near.all():
            total[~near] = _score_unique(candidates[~near], self._scores)
        if near.any():
            rows = np.flatnonzero(near)
            columns = moved[rows].argmax(axis=1)
            steps = change[rows, columns]
            total[rows] = self.regulariser(candidates[rows]) + self._one_step_sums(parent, columns, steps)
        return total

    def _one_step_sums(self, parent: np.ndarray, columns: np.ndarray, steps: np.ndarray) -> np.ndarray:
        """``Σ_t q(t, ω + s·e_j)`` for each ``(j, s)`` from the parent's margins ``z = X̃ω``.

        One pass of ``q`` at ``z + s·x_j`` for each distinct ``(j, s)``, but where several ±1-valued
        columns share a step size: every row then moves by ``±|s|``, so with ``Q±_t = q_t(z_t ± |s|)``,
        ``Σ_t q_t(z_t + s·x_tj) = ½ Σ_t (Q⁺_t + Q⁻_t) + ½ sign(s) Σ_t x_tj (Q⁺_t − Q⁻_t)``:
        two passes of ``q`` and one product with the columns moved for all of them.
        """
        margins = self._parent_margins(parent)
        pairs, pair_of = np.unique(np.column_stack([columns, steps]), axis=0, return_inverse=True)
        pair_columns, pair_steps = pairs[:, 0].astype(np.intp), pairs[:, 1]
        sizes, size_of = np.unique(np.abs(pair_steps), return_inverse=True)
        signed = self.signed_columns[pair_columns] & (pair_steps != 0.0)
        shared = signed & (np.bincount(size_of[signed], minlength=len(sizes))[size_of] >= 2)
        sums = np.empty(len(pairs))
        for pair in np.flatnonzero(~shared):
            moved = margins + pair_steps[pair] * self.design.columns[pair_columns[pair]]
            sums[pair] = self._row_terms(moved).sum()
        for size_index in np.unique(size_of[shared]):
            mine = np.flatnonzero(shared & (size_of == size_index))
            size = sizes[size_index]
            plus, minus = self._row_terms(margins + size), self._row_terms(margins - size)
            level = 0.5 * (plus.sum() + minus.sum())
            moved, position = np.unique(pair_columns[mine], return_inverse=True)
            tilt = self._column_products(np.subtract(plus, minus, out=plus), moved)
            sums[mine] = level + 0.5 * np.sign(pair_steps[mine]) * tilt[position]
        return sums[pair_of.ravel()]

    def _parent_margins(self, parent: np.ndarray) -> np.ndarray:
        """``z = X̃ω`` of ``parent``, carried from the last parent's margins when it is one coordinate away.

        A run's parent is a child of the last one: one column, ``O(n)``, instead of one product,
        ``O(n d)``. The chain starts again at every scoring without a parent (a run's first
        generation), so that a run's scores do not depend on the runs before it on the same fitness.
        """
        if self._last_parent is not None:
            last, margins = self._last_parent
            moved = np.flatnonzero(parent != last)
            if len(moved) == 0:
                return margins
            if len(moved) == 1:
                margins = margins + (parent[moved[0]] - last[moved[0]]) * self.design.columns[moved[0]]
                self._last_parent = (parent.copy(), margins)
                return margins
        margins = self.design.dot(parent)
        self._last_parent = (parent.copy(), margins)
        return margins

    def _column_products(self, weights: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``X̃[:, j]ᵀ w`` for each of the distinct ``columns``.

        Those columns alone when they are few, else ``X̃ᵀw`` whole (:class:`~dpreplication.learning.design.BinaryDesign`).
        """
        if 4 * len(columns) < self.dimension:
            return self.design.columns[columns] @ weights
        return self.design.transpose_dot(weights)[columns]

    def _scores(self, candidates: np.ndarray) -> np.ndarray:
        transposed = np.ascontiguousarray(candidates.T)
        total = self.regulariser(candidates)
        rows = chunk_rows(len(candidates))
        for start in range(0, self.size, rows):
            stop = min(start + rows, self.size)
            total += self._chunk_sum(self.design.rows(start, stop).dot(transposed), start, stop)
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
    label_signed_rows = True  # rows y·[x, 1], so that a product gives the margins y·z

    def __init__(self, features: np.ndarray, labels: np.ndarray, C: float = PRIVATE_SVM_C):
        super().__init__(features, labels, tuple_bound=C)
        self.C = float(C)

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

    def delta2(self, candidates: np.ndarray, parent: np.ndarray | None = None) -> float:
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
