"""Permute-and-flip ≡ report-noisy-max with exponential noise (Ding et al. 2021),
and the McKenna–Sheldon utility comparison. Spec: shared/specs/permute_and_flip.md."""

PF = "permute_and_flip"


rule pf_exact_tables:
    input:
        code=script_code("permute_and_flip/exact_tables.py"),
    output:
        **published(PF, "exact_pmfs", TABLE),
        **{f"summary_{k}": v for k, v in published(PF, "exact_summary", TABLE, "pf_exact_summary.rst").items()},
    log:
        f"{LOGS}/{PF}/exact_tables.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/exact_tables.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "exact_tables"),
    message:
        "P&F: exact pmfs, errors and TVs of P&F, EM and RNM-Laplace (spec §3.4)"
    script:
        "../scripts/permute_and_flip/exact_tables.py"


rule pf_worst_case:
    input:
        code=script_code("permute_and_flip/worst_case.py"),
    output:
        **published(PF, "worst_case", FIGURE, "pf_worst_case.rst", drawing="curves.worst_case"),
    log:
        f"{LOGS}/{PF}/worst_case.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/worst_case.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "worst_case"),
    message:
        "P&F: worst-case expected error against the number of candidates (spec §3.2)"
    script:
        "../scripts/permute_and_flip/worst_case.py"


rule pf_privacy_audit:
    input:
        code=script_code("permute_and_flip/privacy_audit.py"),
    output:
        **published(PF, "privacy_audit", TABLE, "pf_privacy_audit.rst"),
    log:
        f"{LOGS}/{PF}/privacy_audit.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/privacy_audit.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "privacy_audit"),
        seed=SEED,
    message:
        "P&F: exact ε-DP of the three pmfs on random neighbouring score vectors"
    script:
        "../scripts/permute_and_flip/privacy_audit.py"


rule pf_pmf_bars:
    input:
        code=script_code("permute_and_flip/pmf_bars.py"),
    output:
        **published(PF, "pmf_bars", FIGURE, "pf_pmf_bars.rst", drawing="distributions.pmf_bars"),
    log:
        f"{LOGS}/{PF}/pmf_bars.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/pmf_bars.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "pmf_bars"),
        seed=SEED,
    message:
        "P&F: F1, exact pmf against A1–A4 samples"
    script:
        "../scripts/permute_and_flip/pmf_bars.py"


rule pf_tv_convergence:
    input:
        code=script_code("permute_and_flip/tv_convergence.py"),
    output:
        **published(PF, "tv_convergence", FIGURE, "pf_tv_convergence.rst", drawing="distributions.tv_convergence"),
    log:
        f"{LOGS}/{PF}/tv_convergence.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/tv_convergence.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "tv_convergence"),
        seed=SEED,
    message:
        "P&F: F2, total-variation distance against sample size with a null band"
    script:
        "../scripts/permute_and_flip/tv_convergence.py"


rule pf_pp_plot:
    input:
        code=script_code("permute_and_flip/pp_plot.py"),
    output:
        **published(PF, "pp_plot", FIGURE, "pf_pp_plot.rst", drawing="distributions.pp_plot"),
    log:
        f"{LOGS}/{PF}/pp_plot.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/pp_plot.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "pp_plot"),
        seed=SEED,
    message:
        "P&F: F3, P–P plot of A1, G and L against the exact P&F pmf"
    script:
        "../scripts/permute_and_flip/pp_plot.py"


rule pf_lemma_chain:
    input:
        unpack(lambda w: pf_histograms(c["vector"] for c in settings(f"{PF}/lemma_chain")["cases"])),
        code=script_code("permute_and_flip/lemma_chain.py"),
    output:
        **published(PF, "lemma_chain", TABLE, "pf_lemma_chain.rst"),
    log:
        f"{LOGS}/{PF}/lemma_chain.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/lemma_chain.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "lemma_chain"),
        seed=SEED,
    message:
        "P&F: T1, two-sample tests along the lemma chain and the controls"
    script:
        "../scripts/permute_and_flip/lemma_chain.py"


rule pf_lemma_internals:
    input:
        code=script_code("permute_and_flip/lemma_internals.py"),
    output:
        **published(PF, "lemma_internals", TABLE, "pf_lemma_internals.rst"),
    log:
        f"{LOGS}/{PF}/lemma_internals.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/lemma_internals.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "lemma_internals"),
        seed=SEED,
    message:
        "P&F: T2, the random sets and noises inside Lemmas 2–4"
    script:
        "../scripts/permute_and_flip/lemma_internals.py"


rule pf_utility_dataset:
    input:
        histogram=lambda w: dpbench_file(w.dataset),
        code=script_code("permute_and_flip/utility_dataset.py"),
    output:
        curves=f"{WORK}/{PF}/utility/{{dataset}}.csv",
        at_target=f"{WORK}/{PF}/epsilon_at_em/{{dataset}}.csv",
    log:
        f"{LOGS}/{PF}/utility/{{dataset}}.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/utility/{{dataset}}.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "utility_dataset"),
        target_error=settings(f"{PF}/epsilon_at_em")["target_error"],
        seed=SEED,
    message:
        "P&F: exact utility curves and the ε at EM error 50 for {wildcards.dataset}"
    script:
        "../scripts/permute_and_flip/utility_dataset.py"


rule pf_utility_grid:
    input:
        curves=expand(rules.pf_utility_dataset.output.curves, dataset=settings(f"{PF}/utility")["datasets"]),
        at_target=expand(rules.pf_utility_dataset.output.at_target, dataset=settings(f"{PF}/utility")["datasets"]),
        code=script_code("permute_and_flip/utility_grid.py"),
    output:
        **published(PF, "utility_grid", FIGURE, "pf_utility_grid.rst", drawing="curves.utility_grid"),
        **{f"t3_{k}": v for k, v in published(PF, "epsilon_at_em", TABLE, "pf_epsilon_at_em.rst").items()},
    log:
        f"{LOGS}/{PF}/utility_grid.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/utility_grid.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PF, "utility_grid"),
    message:
        "P&F: F4 utility grid and T3 (ε at which EM's error is the target)"
    script:
        "../scripts/permute_and_flip/utility_grid.py"


rule pf_anchors:
    input:
        unpack(lambda w: pf_histograms(f"{p['dataset']}-{p['task']}" for p in settings(f"{PF}/anchors")["points"])),
        code=script_code("permute_and_flip/anchors.py"),
    output:
        **published(PF, "anchors", TABLE, "pf_anchors.rst"),
    log:
        f"{LOGS}/{PF}/anchors.log",
    benchmark:
        f"{BENCHMARKS}/{PF}/anchors.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PF, "anchors"),
    message:
        "P&F: the error and ε ratios quoted in the paper's text"
    script:
        "../scripts/permute_and_flip/anchors.py"
