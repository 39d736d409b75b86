"""DaRRM (Jiang, Zhang & Joshi, TMLR 2024): the optimised noise function γ, its baselines and
every analytic figure (F2–F9), the LP diagnostics and the spec's verified numbers.
Spec: shared/specs/darrm.md."""

from dpreplication.replications.darrm.rule_settings import PURE_DP

DR = "darrm"


rule darrm_f2_gamma_shapes:
    input:
        code=script_code("darrm/gamma_shapes.py"),
    output:
        **published(DR, "f2_gamma_shapes", FIGURE, "darrm_f2_gamma_shapes.rst", drawing="noise_functions.gamma_shapes"),
    log:
        f"{LOGS}/{DR}/f2_gamma_shapes.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f2_gamma_shapes.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f2_gamma_shapes"),
        figure={"figure": "F2", "prior_means": None},
    message:
        "DaRRM: F2, shapes of γ_opt, γ_Sub and γ_const (K=11, approximate DP)"
    script:
        "../scripts/darrm/gamma_shapes.py"


rule darrm_f3_errors:
    input:
        shapes=rules.darrm_f2_gamma_shapes.output.csv,
        code=script_code("darrm/ensemble_errors.py"),
    output:
        **published(DR, "f3_errors", FIGURE, "darrm_f3_errors.rst", drawing="noise_functions.ensemble_errors"),
    log:
        f"{LOGS}/{DR}/f3_errors.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f3_errors.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f3_errors"),
        seed=SEED,
        figure={"figure": "F3", "actual_priors": ["T_U"]},
    message:
        "DaRRM: F3, E(DaRRM_γ) of the F2 noise functions (Monte Carlo over U[0,1]^K)"
    script:
        "../scripts/darrm/ensemble_errors.py"


rule darrm_f4_feasible_region:
    input:
        code=script_code("darrm/f4_feasible_region.py"),
    output:
        **published(
            DR, "f4_feasible_region", FIGURE, "darrm_f4_feasible_region.rst", drawing="noise_functions.feasible_region"
        ),
    log:
        f"{LOGS}/{DR}/f4_feasible_region.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f4_feasible_region.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f4_feasible_region"),
    message:
        "DaRRM: F4, the feasible region F of (p, p') and its four DP boundaries"
    script:
        "../scripts/darrm/f4_feasible_region.py"


rule darrm_f5_gamma_shapes:
    input:
        code=script_code("darrm/gamma_shapes.py"),
    output:
        **published(DR, "f5_gamma_shapes", FIGURE, "darrm_f5_gamma_shapes.rst", drawing="noise_functions.gamma_shapes"),
    log:
        f"{LOGS}/{DR}/f5_gamma_shapes.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f5_gamma_shapes.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f5_gamma_shapes"),
        figure={"figure": "F5", **PURE_DP, "prior_means": None},
    message:
        "DaRRM: F5, shapes of γ_opt, γ_Sub, γ_DSub and γ_const (K=11, pure DP, Setting 1)"
    script:
        "../scripts/darrm/gamma_shapes.py"


rule darrm_f6_errors:
    input:
        shapes=rules.darrm_f5_gamma_shapes.output.csv,
        code=script_code("darrm/ensemble_errors.py"),
    output:
        **published(DR, "f6_errors", FIGURE, "darrm_f6_errors.rst", drawing="noise_functions.ensemble_errors"),
    log:
        f"{LOGS}/{DR}/f6_errors.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f6_errors.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f6_errors"),
        seed=SEED,
        figure={"figure": "F6", "actual_priors": ["T_U"]},
    message:
        "DaRRM: F6, E(DaRRM_γ) of the F5 noise functions"
    script:
        "../scripts/darrm/ensemble_errors.py"


rule darrm_f7_gamma_shapes:
    input:
        code=script_code("darrm/gamma_shapes.py"),
    output:
        **published(DR, "f7_gamma_shapes", FIGURE, "darrm_f7_gamma_shapes.rst", drawing="noise_functions.gamma_shapes"),
    log:
        f"{LOGS}/{DR}/f7_gamma_shapes.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f7_gamma_shapes.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f7_gamma_shapes"),
        figure={"figure": "F7", **PURE_DP, "prior_means": None},
    message:
        "DaRRM: F7, shapes of the four γ for K=101 mechanisms (pure DP, Setting 2)"
    script:
        "../scripts/darrm/gamma_shapes.py"


rule darrm_f8_errors:
    input:
        shapes=rules.darrm_f7_gamma_shapes.output.csv,
        code=script_code("darrm/ensemble_errors.py"),
    output:
        **published(DR, "f8_errors", FIGURE, "darrm_f8_errors.rst", drawing="noise_functions.ensemble_errors"),
    log:
        f"{LOGS}/{DR}/f8_errors.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f8_errors.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f8_errors"),
        seed=SEED,
        figure={"figure": "F8", "actual_priors": ["T_U"]},
    message:
        "DaRRM: F8, E(DaRRM_γ) of the F7 noise functions (K=101)"
    script:
        "../scripts/darrm/ensemble_errors.py"


rule darrm_f9_prior_shapes:
    input:
        code=script_code("darrm/gamma_shapes.py"),
    output:
        **published(DR, "f9_prior_shapes", FIGURE, "darrm_f9_prior_shapes.rst", drawing="noise_functions.gamma_shapes"),
    log:
        f"{LOGS}/{DR}/f9_prior_shapes.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f9_prior_shapes.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f9_prior_shapes"),
        figure={"figure": "F9", **PURE_DP, "mean_probability": None},
    message:
        "DaRRM: F9 panel 1, γ_opt optimised for the priors T_U and T_P, with γ_Sub and γ_const"
    script:
        "../scripts/darrm/gamma_shapes.py"


rule darrm_f9_prior_errors:
    input:
        shapes=rules.darrm_f9_prior_shapes.output.csv,
        code=script_code("darrm/ensemble_errors.py"),
    output:
        **published(
            DR, "f9_prior_errors", FIGURE, "darrm_f9_prior_errors.rst", drawing="noise_functions.ensemble_errors"
        ),
    log:
        f"{LOGS}/{DR}/f9_prior_errors.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f9_prior_errors.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f9_prior_errors"),
        seed=SEED,
        figure={"figure": "F9"},
    message:
        "DaRRM: F9 panels 2–4, E(DaRRM_γ) of the F9 noise functions under several actual priors"
    script:
        "../scripts/darrm/ensemble_errors.py"


rule darrm_lp_diagnostics:
    input:
        code=script_code("darrm/lp_diagnostics.py"),
    output:
        **published(DR, "lp_diagnostics", TABLE, "darrm_lp_diagnostics.rst"),
        # Build and solve times are not reproducible: kept with the logs, out of the compared tables.
        timings=f"{LOGS}/{DR}/lp_diagnostics_times.tsv",
    log:
        f"{LOGS}/{DR}/lp_diagnostics.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/lp_diagnostics.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "lp_diagnostics"),
    message:
        "DaRRM: sizes, presolve, repair and exact privacy of the γ LPs behind the shape figures (spec §4)"
    script:
        "../scripts/darrm/lp_diagnostics.py"


rule darrm_verified_numbers:
    input:
        registry=claim_registry(DR),
        code=script_code("darrm/verified_numbers.py"),
    output:
        **published(DR, "verified_numbers", TABLE, "darrm_verified_numbers.rst"),
    log:
        f"{LOGS}/{DR}/verified_numbers.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/verified_numbers.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "verified_numbers"),
        seed=SEED,
    message:
        "DaRRM: the spec's verified numbers and acceptance values recomputed (spec §5–§6)"
    script:
        "../scripts/darrm/verified_numbers.py"


# ============================================================================ private prediction
# Spec §3: K teachers per dataset (DP-SGD with Opacus, or non-private for GNMax) write cached vote
# matrices; every table afterwards is numpy on those votes. A dataset that cannot be had (no local
# copy, no mirror copy, no answer from its URL) leaves the rest of the DAG running: its table rows
# say "needs download" and so do the scorecard claims that read them.

DR_PREDICTION = f"{WORK}/{DR}/prediction"


checkpoint darrm_prediction_data:
    input:
        code=script_code("darrm/prediction_data.py"),
    output:
        f"{DR_PREDICTION}/data/{{dataset}}.json",
    log:
        f"{LOGS}/{DR}/prediction_data_{{dataset}}.log",
    priority: CRITICAL_PATH
    localrule: True
    conda:
        ENVIRONMENT
    params:
        settings=data_probe(rule_settings(DR, "prediction_data")),
    message:
        "DaRRM: can {wildcards.dataset} be had (data directory, mirror, or canonical URL)?"
    script:
        "../scripts/darrm/prediction_data.py"


rule darrm_prediction_teachers:
    input:
        idx=darrm_dataset_files,
        code=script_code("darrm/prediction_teachers.py"),
    output:
        votes=f"{DR_PREDICTION}/{{dataset}}_{{kind}}_votes.npz",
        teachers=f"{DR_PREDICTION}/{{dataset}}_{{kind}}_teachers.csv",
    log:
        f"{LOGS}/{DR}/prediction_teachers_{{dataset}}_{{kind}}.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teachers_{{dataset}}_{{kind}}.tsv"
    wildcard_constraints:
        kind="private|nonprivate",
    priority: CRITICAL_PATH
    conda:
        ENVIRONMENT
    # One thread: torch's CPU kernels then sum in a fixed order, so the votes are bit-stable.
    threads: 1
    params:
        settings=rule_settings(DR, "prediction_teachers"),
        seed=SEED,
    message:
        "DaRRM: train the {wildcards.kind} teachers of {wildcards.dataset} and cache their votes on the test images"
    script:
        "../scripts/darrm/prediction_teachers.py"


rule darrm_prediction_teacher_replicate:
    input:
        idx=darrm_dataset_files,
        code=script_code("darrm/prediction_teachers.py"),
    output:
        votes=f"{DR_PREDICTION}/replicates/{{dataset}}_{{kind}}_{{replicate}}_votes.npz",
        teachers=f"{DR_PREDICTION}/replicates/{{dataset}}_{{kind}}_{{replicate}}_teachers.csv",
    log:
        f"{LOGS}/{DR}/prediction_teachers_{{dataset}}_{{kind}}_{{replicate}}.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teachers_{{dataset}}_{{kind}}_{{replicate}}.tsv"
    wildcard_constraints:
        kind="private|nonprivate",
        replicate="[1-9][0-9]*",
    conda:
        ENVIRONMENT
    threads: 1
    params:
        settings=rule_settings(DR, "prediction_teacher_replicate"),
        seed=SEED,
    message:
        "DaRRM: the {wildcards.kind} teachers of {wildcards.dataset} again under seed replicate {wildcards.replicate}"
    script:
        "../scripts/darrm/prediction_teachers.py"


rule darrm_prediction_teacher_seeds:
    input:
        unpack(darrm_replicate_inputs),
        code=script_code("darrm/prediction_teacher_seeds.py"),
    output:
        **published(DR, "prediction_teacher_seeds", PRIVATE_TABLE, "darrm_prediction_teacher_seeds.rst"),
    log:
        f"{LOGS}/{DR}/prediction_teacher_seeds.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teacher_seeds.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(DR, "prediction_teacher_seeds"),
        files=darrm_replicate_files,
    message:
        "DaRRM: the aggregators' expected accuracies under independently seeded teacher ensembles, and their spread"
    script:
        "../scripts/darrm/prediction_teacher_seeds.py"


rule darrm_prediction_privacy:
    input:
        code=script_code("darrm/prediction_privacy.py"),
    output:
        **published(DR, "prediction_privacy", TABLE, "darrm_prediction_privacy.rst"),
    log:
        f"{LOGS}/{DR}/prediction_privacy.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_privacy.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "prediction_privacy"),
    message:
        "DaRRM: per-query and total privacy of GNMax, DaRRM_Sub and DaRRM_opt (σ table, γ_opt check)"
    script:
        "../scripts/darrm/prediction_privacy.py"


rule darrm_f10_gnmax_variance:
    input:
        privacy=rules.darrm_prediction_privacy.output.csv,
        code=script_code("darrm/f10_gnmax_variance.py"),
    output:
        **published(
            DR, "f10_gnmax_variance", FIGURE, "darrm_f10_gnmax_variance.rst", drawing="noise_functions.gnmax_variance"
        ),
    log:
        f"{LOGS}/{DR}/f10_gnmax_variance.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/f10_gnmax_variance.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "f10_gnmax_variance"),
    message:
        "DaRRM: F10, GNMax's variance against the Rényi order at each per-query budget"
    script:
        "../scripts/darrm/f10_gnmax_variance.py"


rule darrm_prediction_teachers_table:
    input:
        unpack(darrm_prediction_inputs("teachers")),
        code=script_code("darrm/prediction_teachers_table.py"),
    output:
        **published(DR, "prediction_teachers", PRIVATE_TABLE, "darrm_prediction_teachers.rst"),
    log:
        f"{LOGS}/{DR}/prediction_teachers.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teachers.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(DR, "prediction_teachers_table"),
        files=darrm_prediction_files("teachers"),
    message:
        "DaRRM: teacher accuracies and privacy parameters per dataset"
    script:
        "../scripts/darrm/prediction_teachers_table.py"


rule darrm_prediction_teacher_diagnostics:
    input:
        unpack(darrm_prediction_inputs("votes")),
        code=script_code("darrm/prediction_teacher_diagnostics.py"),
    output:
        **published(DR, "prediction_teacher_diagnostics", TABLE, "darrm_prediction_teacher_diagnostics.rst"),
    log:
        f"{LOGS}/{DR}/prediction_teacher_diagnostics.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teacher_diagnostics.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(DR, "prediction_teacher_diagnostics"),
        files=darrm_prediction_files("votes"),
    message:
        "DaRRM: every teacher's accuracy, class rates and confusion counts (collapse to one class?)"
    script:
        "../scripts/darrm/prediction_teacher_diagnostics.py"


rule darrm_prediction_accuracy:
    input:
        unpack(darrm_prediction_inputs("votes")),
        code=script_code("darrm/prediction_accuracy.py"),
    output:
        **published(DR, "prediction_accuracy", PRIVATE_TABLE, "darrm_prediction_accuracy.rst"),
    log:
        f"{LOGS}/{DR}/prediction_accuracy.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_accuracy.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "prediction_accuracy"),
        files=darrm_prediction_files("votes"),
        seed=SEED,
    message:
        "DaRRM: accuracy of Q private query labels, GNMax vs DaRRM_Sub vs DaRRM_opt (MNIST, Fashion-MNIST)"
    script:
        "../scripts/darrm/prediction_accuracy.py"


# ---------------------------------------------------------------- teacher ablation (issue: DaRRM on MNIST)
# Private teachers of one dataset under DP-SGD configurations within the paper's protocol, on the
# pipeline's shards and seeds, each under several seed replicates (one job per configuration); the
# best configuration within the stated budget is chosen on a validation part of the test pool, and
# its accuracy table is computed on the rest, next to the pipeline's.

DR_ABLATION = f"{DR_PREDICTION}/ablation"


rule darrm_prediction_teacher_ablation_config:
    input:
        idx=darrm_ablation_idx,
        code=script_code("darrm/prediction_teacher_ablation_config.py"),
    output:
        votes=f"{DR_ABLATION}/configs/{{config}}_votes.npz",
        # Per-teacher diagnostics and training times (not reproducible): kept out of the compared table.
        teachers=f"{DR_ABLATION}/configs/{{config}}_teachers.csv",
    log:
        f"{LOGS}/{DR}/prediction_teacher_ablation_{{config}}.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teacher_ablation_{{config}}.tsv"
    priority: CRITICAL_PATH
    conda:
        ENVIRONMENT
    threads: 1
    params:
        settings=rule_settings(DR, "prediction_teacher_ablation_config"),
        seed=SEED,
    message:
        "DaRRM: the ablated dataset's private teachers under DP-SGD configuration {wildcards.config}, every seed replicate"
    script:
        "../scripts/darrm/prediction_teacher_ablation_config.py"


rule darrm_prediction_teacher_ablation:
    input:
        unpack(darrm_ablation_inputs),
        code=script_code("darrm/prediction_teacher_ablation.py"),
    output:
        **published(DR, "prediction_teacher_ablation", PRIVATE_TABLE, "darrm_prediction_teacher_ablation.rst"),
        votes=f"{DR_ABLATION}/best_votes.npz",
    log:
        f"{LOGS}/{DR}/prediction_teacher_ablation.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_teacher_ablation.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(DR, "prediction_teacher_ablation"),
        seed=SEED,
    message:
        "DaRRM: private teachers under DP-SGD configurations within the paper's protocol (epochs, optimiser, ICLR budget)"
    script:
        "../scripts/darrm/prediction_teacher_ablation.py"


rule darrm_prediction_accuracy_best_config:
    input:
        unpack(darrm_ablation_inputs),
        ablation=rules.darrm_prediction_teacher_ablation.output.csv,
        best_votes=rules.darrm_prediction_teacher_ablation.output.votes,
        code=script_code("darrm/prediction_accuracy_best_config.py"),
    output:
        **published(DR, "prediction_accuracy_best_config", PRIVATE_TABLE, "darrm_prediction_accuracy_best_config.rst"),
        teachers=f"{DR_ABLATION}/best_config_teachers.csv",
    log:
        f"{LOGS}/{DR}/prediction_accuracy_best_config.log",
    benchmark:
        f"{BENCHMARKS}/{DR}/prediction_accuracy_best_config.tsv"
    conda:
        ENVIRONMENT
    threads: 1
    params:
        settings=rule_settings(DR, "prediction_accuracy_best_config"),
        seed=SEED,
    message:
        "DaRRM: the accuracy table of the ablated dataset with the best configuration's private teachers"
    script:
        "../scripts/darrm/prediction_accuracy_best_config.py"
