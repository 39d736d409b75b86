"""The constraints of DaRRM's γ_opt LP: the folded privacy rows of every vertex multiset, presolved.

One row ``R_t`` per multiset ``t`` of vertices of F (Lemma 5.1), folded onto ``x = γ((K+1)/2..K)``;
the exact presolve drops the rows that hold for every ``x ∈ [0, 1]`` and the duplicates. The LP
itself, its solve and its repair: :mod:`dpreplication.optimisation.gamma_lp`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms.feasible_region import (
    folded_constraint_rows,
    privacy_budget,
    vertex_multisets,
)
from dpreplication.mechanisms.majority import validate_ensemble_size
from dpreplication.optimisation.lp_memory import CHUNK_CELLS, check_lp_memory
from dpreplication.validation import in_unit_interval, positive

LP_PARAMETERS = parameter_entries(
    """
    K : int, positive and odd
        Number of ``(ε, Δ)``-DP mechanisms.
    m : float, 1 ≤ m ≤ K
        Target budget multiplier: the target is ``(mε, δ)``.
    epsilon : float, ε > 0 and finite
        ε of each mechanism.
    Delta : float, 0 ≤ Δ < 1
        δ of each mechanism (the spec's Δ).
    delta : float, 0 ≤ δ < 1
        δ of the target.
    solver : str
        One of :data:`SOLVERS`.
    max_memory_gb : float, optional
        Refuse (:class:`LPTooLargeError`, before building) if the estimated peak memory
        (:func:`~dpreplication.optimisation.lp_memory.estimate_lp_memory`) exceeds this many GB;
        default: the machine's memory, or the address space ``RLIMIT_AS`` leaves if less;
        ``math.inf``: never refuse.
    """
)


@dataclass(frozen=True)
class ConstraintMatrix:
    """Sparse ``A x ≤ b`` on ``x = γ_upper`` and the presolve counts.

    Parameters
    ----------
    A : scipy.sparse.csr_matrix, shape (rows, (K + 1)/2)
        The folded privacy rows ``R_t`` that survive the presolve.
    b : float, > 0
        The budget ``e^{mε} − 1 + 2δ`` (the same for every row).
    n_vertex_multisets : int
        Number of vertex multisets of F^K (rows before the presolve).
    n_redundant_rows : int
        Rows dropped because they hold for every ``x ∈ [0, 1]``.
    n_duplicate_rows : int
        Duplicate rows removed.
    build_seconds : float
        Wall time of the construction.
    """

    A: sparse.csr_matrix
    b: float
    n_vertex_multisets: int
    n_redundant_rows: int
    n_duplicate_rows: int
    build_seconds: float


@shared_parameters(LP_PARAMETERS)
def darrm_constraint_matrix(
    K: int,
    m: float,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    drop_redundant: bool = True,
    deduplicate: bool = True,
    redundancy_margin: float = 1e-12,
    max_memory_gb: float | None = None,
) -> ConstraintMatrix:
    """Folded privacy rows ``R_t`` over all vertex multisets of F^K (count-based, vectorised).

    Parameters
    ----------
    {K, m, epsilon, Delta, delta}
    drop_redundant : bool
        Drop rows that hold for every ``x ∈ [0, 1]`` (exact presolve; module docstring).
    deduplicate : bool
        Remove duplicate rows.
    redundancy_margin : float, in [0, 1)
        A row is dropped only if its positive part is ≤ ``b(1 − margin)``.
    {max_memory_gb}

    Returns
    -------
    ConstraintMatrix
        ``A``, ``b`` and the presolve counts.

    Raises
    ------
    ValueError
        If a parameter is out of its range.
    LPTooLargeError
        If the estimated memory exceeds ``max_memory_gb``.
    """
    K = validate_ensemble_size(K)
    epsilon = positive("epsilon", epsilon)
    Delta = in_unit_interval("Delta", Delta)
    delta = in_unit_interval("delta", delta)
    if not 1 <= float(m) <= K:
        raise ValueError(f"m must lie in [1, K] = [1, {K}], got {m!r}")
    check_lp_memory(K, Delta, "constraint_matrix", max_memory_gb)
    start = time.perf_counter()
    family = vertex_multisets(K, epsilon, Delta)
    b = privacy_budget(m, epsilon, delta)
    blocks, n_redundant = presolved_rows(family, m, epsilon, b, drop_redundant, redundancy_margin)
    rows = np.concatenate(blocks.blocks)
    n_duplicates = 0
    if deduplicate and rows.shape[0]:
        unique = np.unique(rows, axis=0)
        n_duplicates = rows.shape[0] - unique.shape[0]
        rows = unique
    A = sparse.csr_matrix(rows)
    A.eliminate_zeros()
    return ConstraintMatrix(A, b, family.n_rows, n_redundant, n_duplicates, time.perf_counter() - start)


class RowBlocks:
    """Constraint rows held in the blocks they were computed in: no concatenated copy.

    Supports what the cutting planes and the repair need: ``shape``, ``rows @ x`` and :meth:`take`.
    """

    def __init__(self, blocks: list[np.ndarray]):
        self.blocks = blocks
        self.starts = np.cumsum([0] + [len(block) for block in blocks])
        self.shape = (int(self.starts[-1]), blocks[0].shape[1] if blocks else 0)

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """Return every row times ``x``, in order."""
        return np.concatenate([block @ x for block in self.blocks])

    def take(self, index: np.ndarray) -> np.ndarray:
        """Return the rows at the sorted global ``index``, dense."""
        if len(index) == 0:
            return np.empty((0, self.shape[1]))
        block = np.searchsorted(self.starts, index, side="right") - 1
        return np.stack([self.blocks[k][i - self.starts[k]] for k, i in zip(block, index)])


def presolved_rows(family, m, epsilon, b, drop_redundant=True, redundancy_margin=1e-12) -> tuple[RowBlocks, int]:
    """Fold the rows of every vertex multiset of ``family``; count those the presolve dropped.

    A row is dropped when its positive part is ≤ ``b(1 − margin)``: it holds for every x ∈ [0, 1].
    """
    kept, n_redundant = [], 0
    for _, alpha, alpha_prime in family.chunks(CHUNK_CELLS):
        rows = folded_constraint_rows(alpha, alpha_prime, m, epsilon)
        if drop_redundant:
            binding = np.clip(rows, 0.0, None).sum(axis=1) > b * (1.0 - redundancy_margin)
            n_redundant += int((~binding).sum())
            rows = rows[binding]
        kept.append(rows)
    return RowBlocks(kept), n_redundant
