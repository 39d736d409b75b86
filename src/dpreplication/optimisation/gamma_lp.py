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

The rows and their presolve are built by :mod:`~dpreplication.optimisation.gamma_lp_constraints`;
every solve returns a :class:`~dpreplication.optimisation.gamma_lp_result.GammaLPResult`.
"""

from __future__ import annotations

import logging
import time
from functools import lru_cache

import numpy as np
from scipy import optimize, sparse

from dpreplication.docstrings import shared_parameters
from dpreplication.mechanisms.feasible_region import privacy_budget, vertex_multisets
from dpreplication.mechanisms.majority import validate_ensemble_size
from dpreplication.mechanisms.majority_utility import objective_coefficients
from dpreplication.optimisation.gamma_lp_constraints import LP_PARAMETERS, darrm_constraint_matrix, presolved_rows
from dpreplication.optimisation.gamma_lp_result import GammaLPResult, problem_fields
from dpreplication.optimisation.lp_memory import LPTooLargeError as LPTooLargeError  # re-exported
from dpreplication.optimisation.lp_memory import check_lp_memory
from dpreplication.validation import in_unit_interval, one_of, positive

log = logging.getLogger(__name__)

SOLVERS = ("highs", "highs-ds", "highs-ipm", "cvxpy-highs", "cvxpy-clarabel")
"""``highs*``: ``scipy.optimize.linprog`` methods; ``cvxpy-*``: cvxpy with that solver."""


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


@shared_parameters(LP_PARAMETERS)
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
        **problem_fields(x, c, K, m, epsilon, Delta, delta, mean_probability, solver, status),
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


@shared_parameters(LP_PARAMETERS)
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
    rows, n_redundant = presolved_rows(family, m, epsilon, b)
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
        **problem_fields(x, c, K, m, epsilon, Delta, delta, mean_probability, solver, status),
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
@shared_parameters(LP_PARAMETERS)
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
