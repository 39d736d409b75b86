"""Differentially private mechanisms: selection, additive noise, the enhanced exponential mechanism, private majority.

Each function states its privacy guarantee in its docstring and cites the equation, theorem or
algorithm it implements: ε-DP for the selection mechanisms, the Laplace mechanism, the enhanced
exponential mechanism and the private quantile; (ε, δ)-DP for the truncated Laplacian and the
Gaussian noise; ``(mε, δ)``-DP for DaRRM_γ when γ passes the privacy check; ``(λ, λ/σ²)``-RDP, hence
(ε, δ)-DP, for GNMax.
"""

from dpreplication.exports import lazy_exports

_EXPORTS = {
    # selection: the exponential mechanism, permute-and-flip and report-noisy-max (Ding et al. 2021)
    "exponential_mechanism_pmf": "selection",
    "permute_and_flip_pmf": "selection",
    "report_noisy_max_laplace_pmf": "selection",
    "sample_report_noisy_max": "selection_sampling",
    "sample_permute_and_flip_literal": "selection_sampling",
    "sample_permute_and_flip_batch": "selection_sampling",
    "expected_error": "selection",
    "epsilon_for_expected_error": "selection",
    "permute_and_flip_worst_case_error": "selection",
    "exponential_mechanism_worst_case_error": "selection",
    "intermediate_objects": "selection_sampling",
    "mode_scores": "quality",
    # the private quantile (Smith 2011), GUPT's range estimation
    "private_quantile": "quantile",
    "private_quantile_log_probabilities": "quantile",
    "median_scores": "quality",
    # additive noise: Laplace, analytic Gaussian (Balle & Wang 2018)
    "laplace_scale": "additive",
    "laplace_mechanism": "additive",
    "laplace_privacy_profile": "additive",
    "analytic_gaussian_sigma": "additive",
    "classic_gaussian_sigma": "additive",
    "gaussian_privacy_profile": "additive",
    "laplace_pdf": "additive",
    "gaussian_pdf": "additive",
    # the truncated Laplacian (Geng et al. 2020)
    "TruncatedLaplaceCalibration": "truncated_laplace",
    "calibrate_truncated_laplace": "truncated_laplace",
    "truncated_laplace_mechanism": "truncated_laplace",
    "sample_truncated_laplace": "truncated_laplace",
    "truncated_laplace_pdf": "truncated_laplace",
    "truncated_laplace_privacy_profile": "truncated_laplace",
    # the truncated Laplacian against the analytic Gaussian: R_V, R_D (Geng et al., Figs 2-3)
    "noise_costs": "noise_comparison",
    "amplitude_ratio": "noise_comparison",
    "power_ratio": "noise_comparison",
    "max_ratio_over_epsilon": "noise_comparison",
    "amplitude_upper_bound": "bounds",
    "power_upper_bound": "bounds",
    "amplitude_lower_bound": "bounds",
    "power_lower_bound": "bounds",
    # the enhanced exponential mechanism of PrivGene (Zhang et al. 2013)
    "dampening_factor": "enhanced_exponential",
    "exact_dampening": "enhanced_exponential",
    "selection_pmf": "enhanced_exponential",
    "select": "enhanced_exponential",
    # private majority: DaRRM (Jiang, Zhang & Joshi 2024), subsampling, randomized response, GNMax
    "gamma_subsampling": "majority",
    "gamma_double_subsampling": "majority",
    "gamma_constant": "majority",
    "gamma_majority": "majority",
    "darrm_probability_one": "majority",
    "sample_darrm": "majority",
    "subsample_majority": "majority",
    "feasible_region_vertices": "feasible_region",
    "vertex_multisets": "feasible_region",
    "gnmax_aggregate": "gnmax",
    "gnmax_probability_first": "gnmax",
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
