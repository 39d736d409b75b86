"""Optimisation: the linear programs of the replications.

DaRRM's optimal noise function γ_opt (a linear program) and the optimal-noise lower bound of the
truncated-Laplacian paper (a binned linear program).
"""

from dpreplication.exports import lazy_exports

_EXPORTS = {
    "GammaLPResult": "gamma_lp_result",
    "optimise_gamma": "gamma_lp",
    "optimise_gamma_by_cutting_planes": "gamma_lp",
    "ConstraintMatrix": "gamma_lp_constraints",
    "darrm_constraint_matrix": "gamma_lp_constraints",
    "NoiseLPResult": "noise_lp",
    "optimal_noise_lower_bound": "noise_lp",
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
