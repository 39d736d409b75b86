"""Rigorous lower bounds on the optimal (ε, δ)-DP noise cost by linear programming.

Spec §9 extra E2 ("true optimum by LP"). Bin a feasible continuous noise law
on the grid of width ``h = Δ/N`` (bin ``i`` is ``[(i - ½)h, (i + ½)h)``). The
bin masses ``p`` satisfy, for every integer shift ``k = 1..N`` (i.e. the
continuous constraint at ``d = kh ≤ Δ`` restricted to unions of bins),

    ``Σ_i (p_i - e^ε p_{i+k})_+ ≤ δ``,

and the cost is at least ``Σ_i p_i · min_{x ∈ bin i} |x| = Σ_i p_i ((|i| - ½)_+ h)``
(or its square for the power). The problem is convex and reflection-symmetric,
so ``p`` is taken symmetric without loss. The LP

    minimise ``Σ_i cost_i p_i``  s.t.  ``t_{k,i} ≥ p_i - e^ε p_{i+k}``, ``t ≥ 0``,
    ``Σ_i t_{k,i} ≤ δ`` (k = 1..N), ``Σ_i p_i = 1``, ``p ≥ 0``

is therefore a lower bound on ``V*`` (``D*``) whenever its support bound
``|i| ≤ K = ⌈support_factor · A/h⌉ + N`` (``A`` = truncated-Laplacian bound) is
not active; :attr:`NoiseLPResult.edge_mass` reports the mass in the outermost
``N`` bins as a check. The bound increases to ``V*`` as ``N → ∞``, roughly
like ``V* - O(1/N)``; :func:`richardson_extrapolation` combines two resolutions.

Keeping only ``k = N`` (``shifts="sensitivity"``) is a much weaker relaxation
(0.837 vs 0.935 at ε = 1, δ = 1e-6, N = 20) and is provided only to show that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize, sparse

from dpreplication.mechanisms.truncated_laplace import truncated_laplace_bound

Cost = Literal["amplitude", "power"]


@dataclass(frozen=True)
class NoiseLPResult:
    """Solution of the binned noise LP. ``value`` is the lower bound on ``V*`` or ``D*``.

    Parameters
    ----------
    epsilon : float
        ε of the noise law.
    delta : float
        δ of the noise law.
    sensitivity : float
        Query sensitivity Δ.
    bins_per_sensitivity : int
        ``N``: bins per Δ.
    cost : str
        ``"amplitude"`` (``E|X|``, bound on ``V*``) or ``"power"`` (``E X²``, bound on ``D*``).
    shifts : str
        ``"all"`` (``k = 1..N``) or ``"sensitivity"`` (``k = N`` only).
    value : float
        The LP optimum: a lower bound on ``V*`` or ``D*`` (when :attr:`edge_mass` is negligible).
    bin_width : float
        ``h = Δ/N``.
    bin_centres : numpy.ndarray
        ``i·h`` for ``|i| ≤ K``.
    pmf : numpy.ndarray
        The optimal (symmetric) bin masses.
    edge_mass : float
        Mass in the outermost ``N`` bins of both sides (checks that the support bound is not active).
    backend : str
        ``"scipy"`` or ``"cvxpy"``.
    solver : str
        The solver name passed to the backend.
    """

    epsilon: float
    delta: float
    sensitivity: float
    bins_per_sensitivity: int
    cost: str
    shifts: str
    value: float
    bin_width: float
    bin_centres: np.ndarray
    pmf: np.ndarray
    edge_mass: float
    backend: str
    solver: str


@dataclass(frozen=True)
class _LinearProgram:
    objective: np.ndarray
    inequality: sparse.csr_matrix
    inequality_bound: np.ndarray
    equality: sparse.csr_matrix
    n_half: int


def _build_program(epsilon, delta, cost, radius, shift_set, bin_width) -> _LinearProgram:
    """Variables ``[q_0..q_K, t_{k,i}]`` (``K = radius``, ``p_i = q_{|i|}``).

    Rows ``p_i - e^ε p_{i+k} - t_{k,i} ≤ 0`` for every shift and bin, then one budget row per shift.
    """
    index = np.arange(-radius, radius + 1)
    width = index.size
    n_half = radius + 1
    n_shifts = shift_set.size

    rows, cols, vals = [], [], []
    for s, k in enumerate(shift_set):
        row = s * width + np.arange(width)
        rows.append(row)
        cols.append(np.abs(index))
        vals.append(np.ones(width))
        target = index + k
        inside = np.abs(target) <= radius
        rows.append(row[inside])
        cols.append(np.abs(target[inside]))
        vals.append(np.full(inside.sum(), -np.exp(epsilon)))
        rows.append(row)
        cols.append(n_half + row)
        vals.append(-np.ones(width))
    budget_rows = n_shifts * width + np.repeat(np.arange(n_shifts), width)
    rows.append(budget_rows)
    cols.append(n_half + np.arange(n_shifts * width))
    vals.append(np.ones(n_shifts * width))
    n_vars = n_half + n_shifts * width
    inequality = sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_shifts * width + n_shifts, n_vars),
    )
    inequality_bound = np.concatenate([np.zeros(n_shifts * width), np.full(n_shifts, delta)])

    multiplicity = np.where(np.arange(n_half) == 0, 1.0, 2.0)
    distance = np.maximum(np.arange(n_half) - 0.5, 0.0) * bin_width
    per_bin = distance if cost == "amplitude" else distance**2
    objective = np.concatenate([multiplicity * per_bin, np.zeros(n_shifts * width)])
    equality = sparse.csr_matrix(np.concatenate([multiplicity, np.zeros(n_shifts * width)])[None, :])
    return _LinearProgram(objective, inequality, inequality_bound, equality, n_half)


def _solve_scipy(program: _LinearProgram, solver: str) -> np.ndarray:
    result = optimize.linprog(
        program.objective,
        A_ub=program.inequality,
        b_ub=program.inequality_bound,
        A_eq=program.equality,
        b_eq=np.array([1.0]),
        bounds=(0, None),
        method=solver,
    )
    if result.status != 0:
        raise RuntimeError(f"linprog ({solver}) failed: {result.message}")
    return result.x


def _solve_cvxpy(program: _LinearProgram, solver: str) -> np.ndarray:
    import cvxpy as cp

    x = cp.Variable(program.objective.size, nonneg=True)
    problem = cp.Problem(
        cp.Minimize(program.objective @ x),
        [program.inequality @ x <= program.inequality_bound, program.equality @ x == 1.0],
    )
    problem.solve(solver=solver)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"cvxpy ({solver}) failed: {problem.status}")
    return np.asarray(x.value)


def optimal_noise_lower_bound(
    epsilon: float,
    delta: float,
    bins_per_sensitivity: int,
    cost: Cost = "amplitude",
    sensitivity: float = 1.0,
    support_factor: float = 1.3,
    shifts: Literal["all", "sensitivity"] = "all",
    backend: Literal["scipy", "cvxpy"] = "scipy",
    solver: str = "highs",
) -> NoiseLPResult:
    """Solve the all-shifts binned LP of spec E2: a lower bound on ``V*`` or ``D*``.

    Size grows as ``N² (support_factor·A/Δ + 1)``: ≈ 0.3 s at (1, 1e-3, N = 10), tens of
    seconds at (0.1, 1e-3, N = 16). Spec check: 0.90335 (amplitude) and
    1.75705 (power) at ``ε = 1, δ = 1e-3, N = 10``.

    Parameters
    ----------
    epsilon : float, ε > 0
        ε of the noise law.
    delta : float, 0 < δ < ½
        δ of the noise law (the range of
        :func:`~dpreplication.mechanisms.truncated_laplace.truncated_laplace_bound`, which sets the support).
    bins_per_sensitivity : int, N ≥ 1
        Bins per sensitivity; the bound increases to ``V*`` as ``N → ∞``.
    cost : {"amplitude", "power"}
        Bound on ``V*`` (``E|X|``) or on ``D*`` (``E X²``).
    sensitivity : float, Δ > 0
        Query sensitivity.
    support_factor : float, > 0
        Support bound ``K = ⌈support_factor · A/h⌉ + N`` bins (``A`` = truncated-Laplacian bound).
    shifts : {"all", "sensitivity"}
        All shifts ``k = 1..N`` (the lower bound) or only ``k = N`` (a much weaker relaxation).
    backend : {"scipy", "cvxpy"}
        ``"scipy"`` uses ``scipy.optimize.linprog(method=solver)``; ``"cvxpy"`` uses ``cvxpy``.
    solver : str
        ``"highs"``, ``"highs-ds"`` or ``"highs-ipm"`` for scipy; a cvxpy solver name
        (``"HIGHS"``, ``"CLARABEL"``) for cvxpy.

    Returns
    -------
    NoiseLPResult
        The bound, the optimal binned pmf and the edge-mass check.

    Raises
    ------
    ValueError
        If ``cost``, ``shifts``, ``backend`` or ``bins_per_sensitivity`` is invalid.
    RuntimeError
        If the solver does not reach an optimum.
    """
    if cost not in ("amplitude", "power"):
        raise ValueError(f"cost must be 'amplitude' or 'power', got {cost!r}")
    if shifts not in ("all", "sensitivity"):
        raise ValueError(f"shifts must be 'all' or 'sensitivity', got {shifts!r}")
    n_bins = int(bins_per_sensitivity)
    if n_bins < 1:
        raise ValueError(f"bins_per_sensitivity must be a positive integer, got {bins_per_sensitivity}")
    bound = float(truncated_laplace_bound(epsilon, delta, sensitivity))
    bin_width = float(sensitivity) / n_bins
    radius = int(np.ceil(support_factor * bound / bin_width)) + n_bins
    shift_set = np.arange(1, n_bins + 1) if shifts == "all" else np.array([n_bins])
    program = _build_program(float(epsilon), float(delta), cost, radius, shift_set, bin_width)
    if backend == "scipy":
        solution = _solve_scipy(program, solver)
    elif backend == "cvxpy":
        solution = _solve_cvxpy(program, solver)
    else:
        raise ValueError(f"backend must be 'scipy' or 'cvxpy', got {backend!r}")
    half = np.maximum(solution[: program.n_half], 0.0)
    pmf = np.concatenate([half[:0:-1], half])
    centres = bin_width * np.arange(-radius, radius + 1)
    return NoiseLPResult(
        epsilon=float(epsilon),
        delta=float(delta),
        sensitivity=float(sensitivity),
        bins_per_sensitivity=n_bins,
        cost=cost,
        shifts=shifts,
        value=float(program.objective @ solution),
        bin_width=bin_width,
        bin_centres=centres,
        pmf=pmf,
        edge_mass=float(2.0 * half[-n_bins:].sum()),
        backend=backend,
        solver=solver,
    )


def richardson_extrapolation(coarse_value: float, fine_value: float, refinement: float = 2.0) -> float:
    """``(ρ·LP(ρN) - LP(N))/(ρ - 1)`` with ``ρ = refinement`` (spec E2 estimate of ``V*``).

    ``2·LP(2N) - LP(N)`` for ρ = 2. Removes the O(1/N) discretisation term of the LP lower bound;
    the result is an estimate, not a bound.

    Parameters
    ----------
    coarse_value : float
        ``LP(N)``.
    fine_value : float
        ``LP(ρN)``.
    refinement : float, ρ > 1
        Ratio of the two resolutions.

    Returns
    -------
    float
        The extrapolated value.

    Raises
    ------
    ValueError
        If ``refinement ≤ 1``.
    """
    if refinement <= 1:
        raise ValueError(f"refinement must exceed 1, got {refinement}")
    return (refinement * fine_value - coarse_value) / (refinement - 1.0)
