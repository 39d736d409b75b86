"""Truncated Laplacian mechanism (Geng, Ding, Guo & Kumar, AISTATS 2020) against the analytic
Gaussian (Balle & Wang 2018): Figs 1–3, the canonical values, and extras E1–E8.
Spec: shared/specs/truncated_laplace.md."""

TL = "truncated_laplace"

# The optional libraries behind the cross-check tables, with their versions: installing, removing or
# upgrading one reruns the tables (rerun trigger params), so a stale "missing" row never stays.
TL_ORACLES = library_versions("dp-accounting", "autodp", "diffprivlib", "opendp", "mpmath")


rule tl_density:
    input:
        code=script_code("truncated_laplace/density.py"),
    output:
        **published(
            TL,
            "density",
            FIGURE,
            "tl_density.rst",
            drawing="noise_distributions.density_overlay",
            tables=["density", "density_annotations"],
        ),
        **{
            f"annotations_{k}": v
            for k, v in published(TL, "density_annotations", TABLE, "tl_density_annotations.rst").items()
        },
    log:
        f"{LOGS}/{TL}/density.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/density.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "density"),
    message:
        "TL: Fig. 1, truncated-Laplacian density with Laplace and analytic-Gaussian overlays (spec §8)"
    script:
        "../scripts/truncated_laplace/density.py"


rule tl_amplitude_ratio:
    input:
        code=script_code("truncated_laplace/ratio_curves.py"),
    output:
        **published(TL, "amplitude_ratio", FIGURE, "tl_amplitude_ratio.rst", drawing="noise_distributions.ratio_lines"),
    log:
        f"{LOGS}/{TL}/amplitude_ratio.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/amplitude_ratio.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "amplitude_ratio"),
        quantity="amplitude",
    message:
        "TL: Fig. 2(a), amplitude ratio R_V against ε, one curve per δ (spec §8)"
    script:
        "../scripts/truncated_laplace/ratio_curves.py"


rule tl_power_ratio:
    input:
        code=script_code("truncated_laplace/ratio_curves.py"),
    output:
        **published(TL, "power_ratio", FIGURE, "tl_power_ratio.rst", drawing="noise_distributions.ratio_lines"),
    log:
        f"{LOGS}/{TL}/power_ratio.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/power_ratio.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "power_ratio"),
        quantity="power",
    message:
        "TL: Fig. 3(a), power ratio R_D against ε, one curve per δ (spec §8)"
    script:
        "../scripts/truncated_laplace/ratio_curves.py"


rule tl_amplitude_ratio_heatmap:
    input:
        code=script_code("truncated_laplace/ratio_heatmap.py"),
    output:
        **published(
            TL,
            "amplitude_ratio_heatmap",
            FIGURE,
            "tl_amplitude_ratio_heatmap.rst",
            drawing="noise_distributions.ratio_heatmap",
        ),
    log:
        f"{LOGS}/{TL}/amplitude_ratio_heatmap.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/amplitude_ratio_heatmap.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "amplitude_ratio_heatmap"),
        quantity="amplitude",
    message:
        "TL: Fig. 2(b), R_V over log10 ε × log10 δ with contours (spec §8)"
    script:
        "../scripts/truncated_laplace/ratio_heatmap.py"


rule tl_power_ratio_heatmap:
    input:
        code=script_code("truncated_laplace/ratio_heatmap.py"),
    output:
        **published(
            TL,
            "power_ratio_heatmap",
            FIGURE,
            "tl_power_ratio_heatmap.rst",
            drawing="noise_distributions.ratio_heatmap",
        ),
    log:
        f"{LOGS}/{TL}/power_ratio_heatmap.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/power_ratio_heatmap.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "power_ratio_heatmap"),
        quantity="power",
    message:
        "TL: Fig. 3(b), R_D over log10 ε × log10 δ with contours (spec §8)"
    script:
        "../scripts/truncated_laplace/ratio_heatmap.py"


rule tl_ratio_table:
    input:
        code=script_code("truncated_laplace/ratio_table.py"),
    output:
        **published(TL, "ratio_table", TABLE, "tl_ratio_table.rst"),
    log:
        f"{LOGS}/{TL}/ratio_table.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/ratio_table.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "ratio_table"),
    message:
        "TL: the spec §8 table of R_V and R_D"
    script:
        "../scripts/truncated_laplace/ratio_table.py"


rule tl_ratio_facts:
    input:
        code=script_code("truncated_laplace/ratio_facts.py"),
    output:
        **published(TL, "ratio_facts", TABLE, "tl_ratio_facts.rst"),
    log:
        f"{LOGS}/{TL}/ratio_facts.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/ratio_facts.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "ratio_facts"),
    message:
        "TL: checkable facts about R_V, R_D (suprema, peaks, break-even δ) and σ_aG/σ_cl (spec §8)"
    script:
        "../scripts/truncated_laplace/ratio_facts.py"


rule tl_canonical_values:
    input:
        code=script_code("truncated_laplace/canonical_values.py"),
    output:
        **published(TL, "canonical_values", TABLE, "tl_canonical_values.rst"),
    log:
        f"{LOGS}/{TL}/canonical_values.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/canonical_values.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "canonical_values"),
    message:
        "TL: canonical values A, V_up, D_up, V_low*, D_low*, σ_aG, R_V, R_D (spec §8)"
    script:
        "../scripts/truncated_laplace/canonical_values.py"


rule tl_bound_gap:
    input:
        code=script_code("truncated_laplace/bound_gap.py"),
    output:
        **published(TL, "bound_gap", FIGURE, "tl_bound_gap.rst", drawing="noise_distributions.bound_gap"),
    log:
        f"{LOGS}/{TL}/bound_gap.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/bound_gap.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "bound_gap"),
    message:
        "TL: E1, reconstructed lower bounds over upper bounds against ε (Thms 6–7)"
    script:
        "../scripts/truncated_laplace/bound_gap.py"


rule tl_bound_kinks:
    input:
        code=script_code("truncated_laplace/bound_kinks.py"),
    output:
        **published(TL, "bound_kinks", TABLE, "tl_bound_kinks.rst"),
    log:
        f"{LOGS}/{TL}/bound_kinks.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/bound_kinks.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "bound_kinks"),
    message:
        "TL: where the reconstructed-bound curves bend, against the ε where ⌊n⌋ changes"
    script:
        "../scripts/truncated_laplace/bound_kinks.py"


rule tl_lp_optimum:
    input:
        code=script_code("truncated_laplace/lp_optimum.py"),
    output:
        **published(TL, "lp_optimum", FIGURE, "tl_lp_optimum.rst", drawing="noise_distributions.lp_optimum"),
    log:
        f"{LOGS}/{TL}/lp_optimum.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/lp_optimum.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "lp_optimum"),
    message:
        "TL: E2, the optimal noise cost bracketed by the all-shifts binned LP"
    script:
        "../scripts/truncated_laplace/lp_optimum.py"


rule tl_monte_carlo:
    input:
        code=script_code("truncated_laplace/monte_carlo.py"),
    output:
        **published(TL, "monte_carlo", FIGURE, "tl_monte_carlo.rst", drawing="noise_distributions.monte_carlo_moments"),
    log:
        f"{LOGS}/{TL}/monte_carlo.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/monte_carlo.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "monte_carlo"),
        seed=SEED,
        libraries=library_versions("diffprivlib"),
    message:
        "TL: E3, Monte Carlo E|X| and E X² of our sampler and diffprivlib against V_up, D_up"
    script:
        "../scripts/truncated_laplace/monte_carlo.py"


rule tl_privacy_audit:
    input:
        code=script_code("truncated_laplace/privacy_audit.py"),
    output:
        **published(TL, "privacy_audit", FIGURE, "tl_privacy_audit.rst", drawing="noise_distributions.privacy_audit"),
    log:
        f"{LOGS}/{TL}/privacy_audit.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/privacy_audit.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "privacy_audit"),
    message:
        "TL: E4, numerical hockey-stick audit H_ε(d) against the exact profile"
    script:
        "../scripts/truncated_laplace/privacy_audit.py"


rule tl_privacy_profiles:
    input:
        code=script_code("truncated_laplace/privacy_profiles.py"),
    output:
        **published(
            TL, "privacy_profiles", FIGURE, "tl_privacy_profiles.rst", drawing="noise_distributions.privacy_profiles"
        ),
    log:
        f"{LOGS}/{TL}/privacy_profiles.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/privacy_profiles.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "privacy_profiles"),
    message:
        "TL: E5, privacy profiles δ(ε') of TL, analytic Gaussian and Laplace at one calibration"
    script:
        "../scripts/truncated_laplace/privacy_profiles.py"


rule tl_baselines:
    input:
        code=script_code("truncated_laplace/baselines.py"),
    output:
        **published(TL, "baselines", ("csv", "md", "tex", "json"), "tl_baselines.rst"),
    log:
        f"{LOGS}/{TL}/baselines.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/baselines.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "baselines"),
    message:
        "TL: E6, amplitude and power of TL, Laplace, classic and analytic Gaussian (CSV, Markdown, LaTeX)"
    script:
        "../scripts/truncated_laplace/baselines.py"


rule tl_small_epsilon_limit:
    input:
        code=script_code("truncated_laplace/small_epsilon_limit.py"),
    output:
        **published(
            TL,
            "small_epsilon_limit",
            FIGURE,
            "tl_small_epsilon_limit.rst",
            drawing="noise_distributions.small_epsilon_limit",
        ),
    log:
        f"{LOGS}/{TL}/small_epsilon_limit.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/small_epsilon_limit.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "small_epsilon_limit"),
    message:
        "TL: E7, R_V and R_D as ε → 0 against their limits"
    script:
        "../scripts/truncated_laplace/small_epsilon_limit.py"


rule tl_library_cross_check:
    input:
        code=script_code("truncated_laplace/library_cross_check.py"),
    output:
        **published(TL, "library_cross_check", TABLE, "tl_library_cross_check.rst"),
    log:
        f"{LOGS}/{TL}/library_cross_check.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/library_cross_check.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "library_cross_check"),
        libraries=TL_ORACLES,
    message:
        "TL: E8, σ_aG and A against dp-accounting, autodp, diffprivlib; OpenDP's one-sided δ"
    script:
        "../scripts/truncated_laplace/library_cross_check.py"


rule tl_calibration_audit:
    input:
        code=script_code("truncated_laplace/calibration_audit.py"),
    output:
        **published(TL, "calibration_audit", TABLE),
        **{
            f"summary_{kind}": path
            for kind, path in published(TL, "calibration_audit_summary", TABLE, "tl_calibration_audit.rst").items()
        },
    log:
        f"{LOGS}/{TL}/calibration_audit.log",
    benchmark:
        f"{BENCHMARKS}/{TL}/calibration_audit.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(TL, "calibration_audit"),
        seed=SEED,
        libraries=TL_ORACLES,
    message:
        "TL: E8b, the libraries' analytic-Gaussian σ judged by the exact δ(σ) at 50 digits"
    script:
        "../scripts/truncated_laplace/calibration_audit.py"
