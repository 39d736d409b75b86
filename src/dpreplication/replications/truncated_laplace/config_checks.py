"""The truncated Laplace cross-field configuration checks: the LP optimum's solver against its back end.

Called by :func:`dpreplication.pipeline.config_validation.cross_field_problems` before any job;
each problem names its key.
"""

from __future__ import annotations

SCIPY_LP_METHODS = ("highs", "highs-ds", "highs-ipm")


def truncated_laplace_problems(config: dict) -> list[str]:
    """Check the truncated Laplace settings: the LP solver is one its back end has."""
    section = config.get("truncated_laplace", {}).get("lp_optimum", {})
    backend, solver = section.get("backend", "scipy"), section.get("solver", "highs")
    path = "truncated_laplace.lp_optimum.solver"
    if backend == "scipy" and solver not in SCIPY_LP_METHODS:
        return [
            f"config key '{path}': {solver!r} is not a scipy linprog method {list(SCIPY_LP_METHODS)} (or set backend: cvxpy)"
        ]
    if backend == "cvxpy":
        import cvxpy

        if str(solver).upper() not in cvxpy.installed_solvers():
            return [f"config key '{path}': {solver!r} is not an installed cvxpy solver {cvxpy.installed_solvers()}"]
    return []
