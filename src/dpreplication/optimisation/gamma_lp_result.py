"""The result of DaRRM's γ_opt LP (:mod:`dpreplication.optimisation.gamma_lp`): γ and its LP's bookkeeping."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpreplication.docstrings import shared_parameters
from dpreplication.mechanisms.majority import DARRM_RESULT_FIELDS, symmetric_gamma


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
        The solver of :data:`~dpreplication.optimisation.gamma_lp.SOLVERS` used.
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


def problem_fields(x, c, K, m, epsilon, Delta, delta, mean_probability, solver, status) -> dict:
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
