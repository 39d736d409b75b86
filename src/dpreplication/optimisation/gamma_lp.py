"""The DaRRM noise function γ_opt as a linear program (Jiang, Zhang & Joshi 2024, §5; spec §1.4).

Variables ``x = γ((K+1)/2..K)`` (γ symmetric, ``γ(l) = γ(K−l)``)::

    maximise   c · x,                 c_l = Bin(l; K, q̄) − Bin(K−l; K, q̄)
    subject to R x ≤ (e^{mε} − 1 + 2δ) 1,   0 ≤ x ≤ 1,

one row ``R_t`` per multiset ``t`` of vertices of F (Lemma 5.1; ``f(p, p'; γ) = R_t · x``).
Both output directions are covered because the vertex set is closed under
``(p, p') ↦ (1−p, 1−p')`` and ``−f(p, p') = f(1−p, 1−p')``.

Presolve (exact): a row whose positive part sums to at most the budget holds for every
``x ∈ [0, 1]`` and is dropped; duplicate rows are removed. Solver round-off (HiGHS: about
5e-8) is repaired by scaling, ``x ← x · b/(b + violation)``: the constraints are
homogeneous in x and ``b > 0``, so this restores feasibility exactly (spec §1.4 pitfall 1).

Memory: the rows number ``C(K+7, 7)`` at Δ > 0 (2.8e10 at K = 101), so each builder first
estimates its peak (:mod:`~dpreplication.optimisation.lp_memory`) and refuses a request above
``max_memory_gb`` with :class:`LPTooLargeError` before allocating; the full LP checks its solve
again once the matrix's size is known.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import optimize, sparse

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms.feasible_region import (
    folded_constraint_rows,
    privacy_budget,
    vertex_multisets,
)
from dpreplication.mechanisms.majority import DARRM_RESULT_FIELDS, symmetric_gamma, validate_ensemble_size
from dpreplication.mechanisms.majority_utility import objective_coefficients
from dpreplication.optimisation.lp_memory import CHUNK_CELLS, check_lp_memory
from dpreplication.optimisation.lp_memory import LPTooLargeError as LPTooLargeError  # re-exported
from dpreplication.validation import in_unit_interval, one_of, positive

log = logging.getLogger(__name__)

SOLVERS = ("highs", "highs-ds", "highs-ipm", "cvxpy-highs", "cvxpy-clarabel")
"""``highs*``: ``scipy.optimize.linprog`` methods; ``cvxpy-*``: cvxpy with that solver."""


_LP_PARAMETERS = parameter_entries(
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


@shared_parameters(_LP_PARAMETERS)
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
    blocks, n_redundant = _presolved_rows(family, m, epsilon, b, drop_redundant, redundancy_margin)
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


def _presolved_rows(family, m, epsilon, b, drop_redundant=True, redundancy_margin=1e-12) -> tuple[RowBlocks, int]:
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


@dataclass(frozen=True)
@shared_parameters(DARRM_RESULT_FIELDS)
class GammaLPResult:
    """γ_opt and the bookkeeping of its LP.

    Parameters
    ----------
    gamma : numpy.ndarray, shape (K + 1,), entries in [0, 1]
        γ_opt(0..K), symmetric, repaired by scaling.
    objective : float
        ``c · x`` at the returned (repaired) ``x``.
    {K, m, epsilon, Delta}
    delta : float
        δ of the target.
    mean_probability : float
        q̄ of the objective.
    solver : str
        The solver of :data:`SOLVERS` used.
    status : str
        The solver's status message.
    n_vertex_multisets : int
        Number of vertex multisets of F^K.
    n_rows : int
        Constraint rows after the presolve.
    n_cols : int
        Variables, ``(K + 1)/2``.
    nnz : int
        Non-zeros of the constraint matrix.
    n_redundant_rows : int
        Rows dropped by the presolve as always satisfied.
    n_duplicate_rows : int
        Duplicate rows removed.
    build_seconds : float
        Wall time of the constraint construction.
    solve_seconds : float
        Wall time of the solve(s).
    max_violation_before_repair : float
        ``max(A x) − b`` of the solver's ``x`` (clipped to ``[0, 1]``).
    scale_factor : float, in (0, 1]
        The repair factor applied to ``x``.
    max_violation_after_repair : float
        ``max(A x) − b`` after the repair (≤ 0 means feasible in floating point).
    """

    gamma: np.ndarray
    objective: float
    K: int
    m: float
    epsilon: float
    Delta: float
    delta: float
    mean_probability: float
    solver: str
    status: str
    n_vertex_multisets: int
    n_rows: int
    n_cols: int
    nnz: int
    n_redundant_rows: int
    n_duplicate_rows: int
    build_seconds: float
    solve_seconds: float
    max_violation_before_repair: float
    scale_factor: float
    max_violation_after_repair: float

    @property
    def upper_half(self) -> np.ndarray:
        """``γ((K+1)/2..K)``."""
        return self.gamma[(self.K + 1) // 2 :]

    def summary(self) -> dict:
        """Scalars of the result (no γ), e.g. for a table row."""
        return {k: v for k, v in self.__dict__.items() if k != "gamma"}


def _solve_lp(c, A, b, solver: str, extra_row=None, options: dict | None = None):
    """Maximise ``c·x`` s.t. ``A x ≤ b``, ``0 ≤ x ≤ 1`` (and ``extra_row``: ``(a, β)`` with ``a·x ≥ β``)."""
    n = c.size
    if extra_row is not None:
        A = sparse.vstack([A, sparse.csr_matrix(-extra_row[0][None, :])]).tocsr()
        rhs = np.append(np.full(A.shape[0] - 1, b), -extra_row[1])
    else:
        rhs = np.full(A.shape[0], b)
    if solver.startswith("highs"):
        res = optimize.linprog(
            -c,
            A_ub=A if A.shape[0] else None,
            b_ub=rhs if A.shape[0] else None,
            bounds=[(0.0, 1.0)] * n,
            method=solver,
            options=options or {},
        )
        if res.x is None:
            raise RuntimeError(f"linprog({solver}) failed: {res.message}")
        return np.asarray(res.x, dtype=float), str(res.message)
    if solver.startswith("cvxpy-"):
        import cvxpy as cp

        x = cp.Variable(n)
        constraints = [x >= 0, x <= 1]
        if A.shape[0]:
            constraints.append(A @ x <= rhs)
        problem = cp.Problem(cp.Maximize(c @ x), constraints)
        problem.solve(solver=solver.split("-", 1)[1].upper(), **(options or {}))
        if x.value is None:
            raise RuntimeError(f"cvxpy ({solver}) failed: {problem.status}")
        return np.asarray(x.value, dtype=float), str(problem.status)
    raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")


def repair_by_scaling(
    x: np.ndarray,
    A: sparse.csr_matrix,
    b: float,
    max_rounds: int = 8,
) -> tuple[np.ndarray, float, float, float]:
    """Clip ``x`` to ``[0, 1]`` and scale it so that ``A x ≤ b`` holds in floating point.

    Violations are ``max(A x) − b`` (≤ 0 means feasible; reported as 0 when there are no rows).
    Each round scales ``x`` by ``b/(b + violation)`` rounded down; after ``max_rounds`` rounds the
    result is returned whatever its violation.

    Parameters
    ----------
    x : numpy.ndarray
        The solver's solution.
    A : scipy.sparse.csr_matrix
        Constraint rows; every row is homogeneous in ``x``.
    b : float, > 0
        Right-hand side of every row.
    max_rounds : int, ≥ 0
        Most scaling rounds.

    Returns
    -------
    tuple
        ``(x_repaired, violation_before, scale, violation_after)``.
    """
    x = np.clip(x, 0.0, 1.0)
    if A.shape[0] == 0:
        return x, 0.0, 1.0, 0.0
    violation_before = float((A @ x).max() - b)
    scale, violation = 1.0, violation_before
    for _ in range(max_rounds):
        if violation <= 0:
            break
        scale = np.nextafter(scale * b / (b + violation), 0.0)
        violation = float((A @ (scale * x)).max() - b)
    return scale * x, violation_before, float(scale), violation


def _repair_or_refuse(x, rows, b, where: str) -> tuple[np.ndarray, float, float, float]:
    """:func:`repair_by_scaling`, refusing a γ the repair leaves above the budget: it would not be private."""
    x, violation_before, scale, violation_after = repair_by_scaling(x, rows, b)
    if violation_after > 0:
        raise RuntimeError(
            f"{where}: the repaired gamma still exceeds a privacy constraint by {violation_after:.3e} "
            f"(by {violation_before:.3e} before); it would not be (m eps, delta)-DP"
        )
    return x, violation_before, scale, violation_after


def _problem_fields(x, c, K, m, epsilon, Delta, delta, mean_probability, solver, status) -> dict:
    """Return the :class:`GammaLPResult` fields that state the problem and its repaired solution ``x``."""
    return {
        "gamma": symmetric_gamma(x),
        "objective": float(c @ x),
        "K": K,
        "m": float(m),
        "epsilon": float(epsilon),
        "Delta": float(Delta),
        "delta": float(delta),
        "mean_probability": float(mean_probability),
        "solver": solver,
        "status": status,
    }


@shared_parameters(_LP_PARAMETERS)
def optimise_gamma(
    K: int,
    m: float,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    mean_probability: float = 0.75,
    solver: str = "highs",
    objective: np.ndarray | None = None,
    canonical: bool = False,
    canonical_tolerance: float = 1e-9,
    solver_options: dict | None = None,
    max_memory_gb: float | None = None,
) -> GammaLPResult:
    """γ_opt of DaRRM for ``K`` ``(ε, Δ)``-DP mechanisms and target ``(mε, δ)`` (spec §1.4).

    Jiang, Zhang & Joshi (2024), §5: the LP of the module docstring, on every presolved row (for
    K beyond about 101, :func:`optimise_gamma_by_cutting_planes` reaches the same optimum in a
    fraction of the memory). Guarantee: the returned γ is
    repaired by scaling (module docstring) and is ``(mε, δ)``-DP over the full vertex constraint
    set (exact by Lemma 5.1): the repair must end with
    :attr:`GammaLPResult.max_violation_after_repair` ≤ 0, or no γ is returned.

    Parameters
    ----------
    {K, m, epsilon, Delta, delta}
    mean_probability : float, 0 < q̄ < 1
        q̄ of the objective (0.75 for T_U [I], 0.85 for T_P [I]).
    {solver}
    objective : array_like of float, shape ((K + 1)/2,), optional
        Overrides ``c``.
    canonical : bool
        [spec §7 extra] A second LP maximises ``Σx`` among solutions with
        ``c·x ≥ (1 − tol)·opt`` so γ does not depend on the solver's vertex choice.
    canonical_tolerance : float, ≥ 0
        ``tol`` of ``canonical``.
    solver_options : dict, optional
        Passed to ``linprog(options=…)`` or ``cvxpy.Problem.solve``
        (e.g. ``{"primal_feasibility_tolerance": 1e-9}`` shrinks the HiGHS repair).
    {max_memory_gb}

    Returns
    -------
    GammaLPResult
        γ_opt and the bookkeeping of its LP.

    Raises
    ------
    ValueError
        If a parameter is out of its range.
    RuntimeError
        If the solver returns no solution, or its solution still violates a privacy constraint
        after the repair.
    LPTooLargeError
        If the estimated memory of the build, or of the solve once the matrix is built, exceeds
        ``max_memory_gb``.

    Examples
    --------
    >>> from dpreplication.accounting import verify_privacy
    >>> from dpreplication.optimisation import optimise_gamma
    >>> result = optimise_gamma(K=11, m=3, epsilon=0.1)
    >>> result.gamma.round(3).tolist()
    [1.0, 0.977, 1.0, 1.0, 0.542, 0.94, 0.94, 0.542, 1.0, 1.0, 0.977, 1.0]
    >>> verify_privacy(result.gamma, K=11, m=3, epsilon=0.1).violation <= 1e-12
    True
    """
    K = validate_ensemble_size(K)
    one_of("solver", solver, SOLVERS)
    in_unit_interval("mean_probability", mean_probability, include_zero=False)
    c = objective_coefficients(K, mean_probability) if objective is None else np.asarray(objective, float)
    constraints = darrm_constraint_matrix(K, m, epsilon, Delta, delta, max_memory_gb=max_memory_gb)
    A, b = constraints.A, constraints.b
    check_lp_memory(K, Delta, "full", max_memory_gb, lp_shape=(A.shape[0], A.nnz))
    start = time.perf_counter()
    x, status = _solve_lp(c, A, b, solver, options=solver_options)
    if canonical:
        target = float(c @ x)
        x, status = _solve_lp(
            np.ones_like(c),
            A,
            b,
            solver,
            extra_row=(c, target - canonical_tolerance * abs(target)),
            options=solver_options,
        )
    solve_seconds = time.perf_counter() - start
    where = f"DaRRM LP K={K} m={m} eps={epsilon} Delta={Delta} delta={delta}"
    x, violation_before, scale, violation_after = _repair_or_refuse(x, A, b, where)
    result = GammaLPResult(
        **_problem_fields(x, c, K, m, epsilon, Delta, delta, mean_probability, solver, status),
        n_vertex_multisets=constraints.n_vertex_multisets,
        n_rows=A.shape[0],
        n_cols=A.shape[1] if A.shape[0] else c.size,
        nnz=int(A.nnz),
        n_redundant_rows=constraints.n_redundant_rows,
        n_duplicate_rows=constraints.n_duplicate_rows,
        build_seconds=constraints.build_seconds,
        solve_seconds=solve_seconds,
        max_violation_before_repair=violation_before,
        scale_factor=scale,
        max_violation_after_repair=violation_after,
    )
    log.info(
        "DaRRM LP K=%d m=%g eps=%g Delta=%g delta=%.3g: %d multisets -> %d rows x %d cols (nnz %d; "
        "%d redundant, %d duplicate); build %.2fs, %s %.2fs; objective %.6f",
        K,
        m,
        epsilon,
        Delta,
        delta,
        result.n_vertex_multisets,
        result.n_rows,
        result.n_cols,
        result.nnz,
        result.n_redundant_rows,
        result.n_duplicate_rows,
        result.build_seconds,
        solver,
        solve_seconds,
        result.objective,
    )
    if violation_before > 0:
        log.info(
            "DaRRM LP repair: max violation %.3e before, scaled gamma by %.15f, max violation %.3e after",
            violation_before,
            scale,
            violation_after,
        )
    return result


FEASIBILITY_TOLERANCE = 1e-7
"""A row counts as violated when it exceeds the budget by more than this: HiGHS's default primal
feasibility tolerance, so the cutting planes stop where a full solve would leave its own round-off."""


@shared_parameters(_LP_PARAMETERS)
def optimise_gamma_by_cutting_planes(
    K: int,
    m: float,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    mean_probability: float = 0.75,
    solver: str = "highs",
    rows_per_round: int | None = None,
    max_rounds: int = 100,
    max_memory_gb: float | None = None,
) -> GammaLPResult:
    """γ_opt of :func:`optimise_gamma`'s LP, solved on a growing set of its rows (for large K).

    An optimum of the LP on some of the rows that satisfies every row is an optimum of the whole
    LP: it is feasible, and the relaxation's optimum bounds every feasible objective. Starting from
    the rows most violated by plain majority (x = 1), each round adds the ``rows_per_round`` rows
    that the current x violates most, until none exceeds the budget by more than
    :data:`FEASIBILITY_TOLERANCE`; the repair by scaling then runs over every row, so the returned
    γ is ``(mε, δ)``-DP over the full vertex constraint set (Lemma 5.1) like :func:`optimise_gamma`'s.
    The presolved rows are held once, dense, and never as a sparse copy, nor inside the solver: at
    most (K + 1)/2 rows are active at an optimal vertex, so each LP stays small. Memory and time:
    ``docs/costs.md`` and ``benchmarks/test_darrm_benchmarks.py`` (K = 201). Those rows are all
    ``C(K+7, 7)`` vertex multisets at Δ > 0: K = 21 takes 0.3 GB, K = 101 would take about 16 TB
    (by the estimate; 2.8e10 rows) and is refused, before building, with :class:`LPTooLargeError`.

    Parameters
    ----------
    {K, m, epsilon, Delta, delta}
    mean_probability : float, 0 < q̄ < 1
        q̄ of the objective (0.75 for T_U [I], 0.85 for T_P [I]).
    {solver}
    rows_per_round : int, optional
        Rows added per round (default ``K + 1``).
    max_rounds : int
        Most rounds before a ``RuntimeError``.
    {max_memory_gb}

    Returns
    -------
    GammaLPResult
        γ_opt; ``n_rows`` and ``nnz`` are those of the last LP solved.

    Raises
    ------
    ValueError
        If a parameter is out of its range.
    RuntimeError
        If the rounds run out, the solver fails, or the repaired γ still violates a row.
    LPTooLargeError
        If the estimated memory exceeds ``max_memory_gb``.
    """
    K = validate_ensemble_size(K)
    one_of("solver", solver, SOLVERS)
    epsilon = positive("epsilon", epsilon)
    in_unit_interval("mean_probability", mean_probability, include_zero=False)
    if not 1 <= float(m) <= K:
        raise ValueError(f"m must lie in [1, K] = [1, {K}], got {m!r}")
    rows_per_round = rows_per_round or K + 1
    Delta = in_unit_interval("Delta", Delta)
    check_lp_memory(K, Delta, "cutting_planes", max_memory_gb, rows_per_round=rows_per_round, max_rounds=max_rounds)
    c = objective_coefficients(K, mean_probability)
    start = time.perf_counter()
    family = vertex_multisets(K, epsilon, Delta)
    b = privacy_budget(m, epsilon, delta)
    rows, n_redundant = _presolved_rows(family, m, epsilon, b)
    build_seconds = time.perf_counter() - start
    start = time.perf_counter()
    active = np.sort(np.argsort(rows @ np.ones(c.size))[-rows_per_round:])
    for _ in range(max_rounds):
        x, status = _solve_lp(c, sparse.csr_matrix(rows.take(active)), b, solver)
        excess = rows @ np.clip(x, 0.0, 1.0) - b
        violated = np.flatnonzero(excess > FEASIBILITY_TOLERANCE)
        if violated.size == 0:
            break
        worst = violated[np.argsort(excess[violated])[-rows_per_round:]]
        active = np.union1d(active, worst)
    else:
        raise RuntimeError(f"DaRRM LP K={K} m={m}: cutting planes did not converge in {max_rounds} rounds")
    solve_seconds = time.perf_counter() - start
    where = f"DaRRM LP K={K} m={m} eps={epsilon} Delta={Delta} delta={delta} (cutting planes)"
    x, violation_before, scale, violation_after = _repair_or_refuse(x, rows, b, where)
    return GammaLPResult(
        **_problem_fields(x, c, K, m, epsilon, Delta, delta, mean_probability, solver, status),
        n_vertex_multisets=family.n_rows,
        n_rows=int(active.size),
        n_cols=c.size,
        nnz=int(np.count_nonzero(rows.take(active))),
        n_redundant_rows=n_redundant,
        n_duplicate_rows=0,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        max_violation_before_repair=violation_before,
        scale_factor=scale,
        max_violation_after_repair=violation_after,
    )


@lru_cache(maxsize=64)
@shared_parameters(_LP_PARAMETERS)
def optimise_gamma_cached(
    K: int,
    m: float,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    mean_probability: float = 0.75,
    solver: str = "highs",
) -> GammaLPResult:
    """:func:`optimise_gamma` memoised on its (hashable) arguments; γ is read-only.

    Parameters
    ----------
    {K, m, epsilon, Delta, delta}
    mean_probability : float, 0 < q̄ < 1
        q̄ of the objective.
    {solver}

    Returns
    -------
    GammaLPResult
        The cached result (shared between calls: do not modify it).
    """
    result = optimise_gamma(K, m, epsilon, Delta, delta, mean_probability, solver)
    result.gamma.setflags(write=False)
    return result
