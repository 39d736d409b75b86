"""PrivGene (Zhang, Xiao, Yang, Zhang & Winslett, SIGMOD 2013): datasets and Table 2, the choice
of c (Fig. 2), EEM against EM (Figs 6–7) with the Δ traces, NoPrivacy/Majority levels and the
spec's exact checks. Spec: shared/specs/privgene.md. A job rule runs one (dataset, task) over a
batch of repetitions and every value its figure varies there (the selection variants, the methods
of Figs 3–5; the reference job: every reference method, dataset and task, as they are cheap; but
Fig. 2's, one c each), each repetition and value drawing from its own seeded streams, and writes a
small CSV under WORK; an aggregation rule per figure publishes it."""

PG = "privgene"
"""What the (many, costly) jobs run; the aggregation rules also depend on the figure-table module."""
PG_WORK = f"{WORK}/{PG}"

PG_WILDCARDS = {"pg_dataset": "|".join(PRIVGENE_DATASETS), "task": "lr|svm", "repetitions": r"\d+-\d+"}


rule privgene_dataset:
    input:
        files=lambda w: privgene_raw_files(w.pg_dataset),
        code=script_code("privgene/dataset.py"),
    output:
        f"{PG_WORK}/data/{{pg_dataset}}.npz",
    log:
        f"{LOGS}/{PG}/data/{{pg_dataset}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/data/{{pg_dataset}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "dataset"),
        seed=SEED,
    message:
        "PrivGene: encode and scale {wildcards.pg_dataset} to [-1, 1] (spec §6)"
    script:
        "../scripts/privgene/dataset.py"


rule privgene_table2:
    input:
        data=[privgene_data(name) for name in PRIVGENE_DATASETS],
        code=script_code("privgene/table2.py"),
    output:
        **published(PG, "table2_datasets", TABLE, "privgene_table2.rst"),
    log:
        f"{LOGS}/{PG}/table2_datasets.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/table2_datasets.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "table2"),
    message:
        "PrivGene: Table 2 regenerated from the loaded data, with every substitution"
    script:
        "../scripts/privgene/table2.py"


rule privgene_choice_of_c_job:
    """One c of Fig. 2's grid on a batch of repetitions: a job's cost is one c's, so the paper
    profile's longest job is not the whole grid's (its streams are keyed by c, so nothing moves)."""
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/choice_of_c_job.py"),
    output:
        f"{PG_WORK}/choice_of_c/{{pg_dataset}}/{{task}}/c{{c}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/choice_of_c/{{pg_dataset}}/{{task}}/c{{c}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/choice_of_c/{{pg_dataset}}/{{task}}/c{{c}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
        c=r"[0-9][0-9.e+-]*",
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "choice_of_c_job"),
        seed=SEED,
    message:
        "PrivGene: Fig. 2 job, {wildcards.pg_dataset} {wildcards.task}, c = {wildcards.c}, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/choice_of_c_job.py"


rule privgene_choice_of_c:
    input:
        jobs=privgene_jobs(
            rules.privgene_choice_of_c_job.output[0],
            "choice_of_c",
            pg_dataset=settings(f"{PG}/choice_of_c")["datasets"],
            task=settings(f"{PG}/choice_of_c")["tasks"],
            c=[c_label(c) for c in settings(f"{PG}/choice_of_c")["c_grid"]],
        ),
        code=script_code("privgene/choice_of_c.py"),
    output:
        **published(PG, "fig2_choice_of_c", PRIVATE_FIGURE, "privgene_fig2.rst", drawing="curves.ratio_against_c"),
        **{f"summary_{k}": v for k, v in published(PG, "fig2_summary", TABLE, "privgene_fig2_summary.rst").items()},
    log:
        f"{LOGS}/{PG}/fig2_choice_of_c.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/fig2_choice_of_c.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "choice_of_c"),
    message:
        "PrivGene: Fig. 2, misclassification against c relative to c = 0.5e-3 (Adult, Banking; LR, SVM)"
    script:
        "../scripts/privgene/choice_of_c.py"


rule privgene_eem_vs_em_job:
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/eem_vs_em_job.py"),
    output:
        f"{PG_WORK}/eem_vs_em/{{pg_dataset}}/{{task}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/eem_vs_em/{{pg_dataset}}/{{task}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/eem_vs_em/{{pg_dataset}}/{{task}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "eem_vs_em_job"),
        seed=SEED,
    message:
        "PrivGene: Figs 6–7 job, {wildcards.pg_dataset} {wildcards.task}, every variant, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/eem_vs_em_job.py"


rule privgene_paper_r_job:
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/paper_r_job.py"),
    output:
        f"{PG_WORK}/eem_vs_em_paper_r/{{pg_dataset}}/{{task}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/eem_vs_em_paper_r/{{pg_dataset}}/{{task}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/eem_vs_em_paper_r/{{pg_dataset}}/{{task}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "paper_r_job"),
        seed=SEED,
    message:
        "PrivGene: Figs 6–7 at the paper's r, {wildcards.pg_dataset} {wildcards.task}, every variant, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/paper_r_job.py"


rule privgene_svm_c:
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/svm_c.py"),
    output:
        f"{PG_WORK}/reference/{{pg_dataset}}/svm_C.csv",
    log:
        f"{LOGS}/{PG}/reference/{{pg_dataset}}/svm_C.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/reference/{{pg_dataset}}/svm_C.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    priority: CRITICAL_PATH  # the long reachable-set job waits for it
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "svm_c"),
        seed=SEED,
    message:
        "PrivGene: NoPrivacy SVM, C chosen by CV on repetition 0 of {wildcards.pg_dataset} (spec §3.1)"
    script:
        "../scripts/privgene/svm_c.py"


rule privgene_reference_job:
    input:
        tuned_C=privgene_tuned_c(),
        data=[privgene_data(name) for name in settings(f"{PG}/reference")["datasets"]],
        code=script_code("privgene/reference_job.py"),
    output:
        f"{PG_WORK}/reference/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/reference/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/reference/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "reference_job"),
        seed=SEED,
    message:
        "PrivGene: NoPrivacy and Majority on every reference dataset and task, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/reference_job.py"


rule privgene_reference_levels:
    input:
        jobs=privgene_references("reference"),
        data=[privgene_data(name) for name in settings(f"{PG}/reference")["datasets"]],
        code=script_code("privgene/reference_levels.py"),
    output:
        **published(PG, "reference_levels", PRIVATE_TABLE, "privgene_reference_levels.rst"),
    log:
        f"{LOGS}/{PG}/reference_levels.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/reference_levels.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "reference_levels"),
    message:
        "PrivGene: NoPrivacy and Majority misclassification levels (mean ± 95 % CI)"
    script:
        "../scripts/privgene/reference_levels.py"


rule privgene_eem_vs_em:
    input:
        jobs=privgene_jobs(
            rules.privgene_eem_vs_em_job.output[0],
            "eem_vs_em",
            pg_dataset=["US", "BR"],
            task=settings(f"{PG}/eem_vs_em")["tasks"],
        ),
        paper_r=privgene_jobs(
            rules.privgene_paper_r_job.output[0],
            "eem_vs_em",
            pg_dataset=["US", "BR"],
            task=settings(f"{PG}/eem_vs_em")["tasks"],
        ),
        references=privgene_references("reference"),
        data=[privgene_data("US"), privgene_data("BR")],
        code=script_code("privgene/eem_vs_em.py"),
    output:
        **{
            f"us_{k}": v
            for k, v in published(
                PG, "fig6_eem_vs_em_us", PRIVATE_FIGURE, "privgene_fig6.rst", drawing="curves.error_against_iteration"
            ).items()
        },
        **{
            f"br_{k}": v
            for k, v in published(
                PG, "fig7_eem_vs_em_br", PRIVATE_FIGURE, "privgene_fig7.rst", drawing="curves.error_against_iteration"
            ).items()
        },
        **{
            f"summary_{k}": v
            for k, v in published(PG, "eem_vs_em_summary", TABLE, "privgene_eem_vs_em_summary.rst").items()
        },
        **{
            f"trace_{k}": v
            for k, v in published(
                PG,
                "dampening_trace",
                FIGURE,
                "privgene_dampening_trace.rst",
                drawing="curves.dampening_against_iteration",
            ).items()
        },
        **{
            f"deltas_{k}": v
            for k, v in published(PG, "dampening_summary", TABLE, "privgene_dampening_summary.rst").items()
        },
    log:
        f"{LOGS}/{PG}/eem_vs_em.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/eem_vs_em.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "eem_vs_em"),
    message:
        "PrivGene: Figs 6 (US) and 7 (BR), EEM against EM over the iterations, and the Δ traces"
    script:
        "../scripts/privgene/eem_vs_em.py"


rule privgene_verified_numbers:
    input:
        data=[privgene_data(name) for name in ("Adult", "Banking", "US", "BR")],
        code=script_code("privgene/verified_numbers.py"),
    output:
        **published(PG, "verified_numbers", TABLE, "privgene_verified_numbers.rst"),
    log:
        f"{LOGS}/{PG}/verified_numbers.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/verified_numbers.tsv"
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "verified_numbers"),
        seed=SEED,
    message:
        "PrivGene: the spec's exact numbers (r, s_48, Example 1, budget) and exact EEM privacy audits"
    script:
        "../scripts/privgene/verified_numbers.py"


# ---------------------------------------------------------------- Figs 3–5: PrivGene against the baselines


rule privgene_comparison_job:
    """One (dataset, task, batch of repetitions), every method of the task's series, over the
    whole ε grid, not one job per ε: GUPT's block fits and PrivateSVM's non-private weights do not
    depend on ε and are computed once per fold (spec §3.5, §3.6); every (method, fold, ε) still
    draws its own seeded stream, so a point's value does not depend on the rest of the grid or on
    the other methods. NoPrivacy is the reference job of the same folds."""
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/comparison_job.py"),
    output:
        f"{PG_WORK}/comparison/{{pg_dataset}}/{{task}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/comparison/{{pg_dataset}}/{{task}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/comparison/{{pg_dataset}}/{{task}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "comparison_job"),
        seed=SEED,
    message:
        "PrivGene: Figs 3–4 job, {wildcards.pg_dataset} {wildcards.task}, every method, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/comparison_job.py"


rule privgene_kmeans_job:
    """A batch of runs of every method on the full scaled data over the whole ε grid (GUPT's block fits shared)."""
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/kmeans_job.py"),
    output:
        f"{PG_WORK}/kmeans/{{pg_dataset}}/k{{k}}/runs{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/kmeans/{{pg_dataset}}/k{{k}}/runs{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/kmeans/{{pg_dataset}}/k{{k}}/runs{{repetitions}}.tsv"
    wildcard_constraints:
        **{**PG_WILDCARDS, "pg_dataset": "Lifesci|Image", "k": r"\d+"},
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "kmeans_job"),
        seed=SEED,
    message:
        "PrivGene: Fig. 5 job, {wildcards.pg_dataset} k={wildcards.k}, every method, runs {wildcards.repetitions}"
    script:
        "../scripts/privgene/kmeans_job.py"


checkpoint privgene_comparison_plan:
    """Repetitions where they decide (issue #32): the comparison claims judged on the first stage;
    each inconclusive one's straddling cells get the repetitions that would resolve it, up to the
    paper's, cheapest claims first within the profile's budget
    (:mod:`dpreplication.pipeline.repetitions`)."""
    input:
        jobs=privgene_comparison_jobs(rules.privgene_comparison_job.output[0]),
        references=privgene_comparison_references(),
        registry=claim_registry(PG),
        code=script_code("privgene/comparison_plan.py"),
    output:
        f"{PG_WORK}/comparison_plan.csv",
    log:
        f"{LOGS}/{PG}/comparison_plan.log",
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "comparison_plan"),
    message:
        "PrivGene: which Figs 3–4 cells need more repetitions to decide their claims"
    script:
        "../scripts/privgene/comparison_plan.py"


rule privgene_comparison_extra_job:
    """A second-stage batch of one cell: the first stage's job for one (method, ε), later repetitions,
    the same seeded streams (NoPrivacy: the reference job, ε-free)."""
    input:
        data=privgene_data("{pg_dataset}"),
        tuned_C=privgene_extra_tuned_c,
        code=script_code("privgene/comparison_extra_job.py"),
    output:
        f"{PG_WORK}/comparison_extra/{{pg_dataset}}/{{task}}/{{method}}/eps{{epsilon}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/comparison_extra/{{pg_dataset}}/{{task}}/{{method}}/eps{{epsilon}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/comparison_extra/{{pg_dataset}}/{{task}}/{{method}}/eps{{epsilon}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
        method="[A-Za-z]+",
        epsilon=r"free|[0-9.e-]+",
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "comparison_extra_job"),
        seed=SEED,
    message:
        "PrivGene: Figs 3–4 second stage, {wildcards.pg_dataset} {wildcards.task} {wildcards.method} ε={wildcards.epsilon}, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/comparison_extra_job.py"


PG_COMPARISON_FIGURES = {
    "fig3": ("fig3_lr", "Fig. 3, logistic regression", ["lr"]),
    "fig4": ("fig4_svm", "Fig. 4, SVM", ["svm"]),
    "fig5": ("fig5_kmeans", "Fig. 5, k-means", None),
}
"""Rule privgene_<key> -> (output name, what it draws, the Figs 3–4 tasks it reads; None: Fig. 5's k-means jobs)."""

for _figure, (_name, _what, _tasks) in PG_COMPARISON_FIGURES.items():

    rule:
        name:
            f"privgene_{_figure}"
        input:
            jobs=(
                privgene_kmeans_jobs(rules.privgene_kmeans_job.output[0])
                if _tasks is None
                else privgene_comparison_jobs(rules.privgene_comparison_job.output[0], _tasks)
            ),
            references=[] if _tasks is None else privgene_comparison_references(_tasks),
            extra=([] if _tasks is None else lambda w, tasks=_tasks: privgene_second_stage_jobs(w, tasks)),
            data=[
                privgene_data(name)
                for name in (
                    settings(f"{PG}/comparison")["kmeans"]["panels"]
                    if _tasks is None
                    else settings(f"{PG}/comparison")["datasets"]
                )
            ],
            code=script_code("privgene/comparison_figure.py"),
        output:
            **published(PG, _name, PRIVATE_FIGURE, f"privgene_{_figure}.rst", drawing="curves.value_against_epsilon"),
        log:
            f"{LOGS}/{PG}/{_name}.log",
        benchmark:
            f"{BENCHMARKS}/{PG}/{_name}.tsv"
        conda:
            ENVIRONMENT
        params:
            settings=rule_settings(PG, "comparison_figure" if _tasks is not None else "kmeans_figure"),
            figure=_figure,
            seed=SEED,
        message:
            f"PrivGene: {_what}, against ε with the baselines"
        script:
            "../scripts/privgene/comparison_figure.py"


rule privgene_comparison_pairs:
    input:
        jobs=privgene_comparison_jobs(rules.privgene_comparison_job.output[0]),
        references=privgene_comparison_references(),
        extra=privgene_second_stage_jobs,
        kmeans=privgene_kmeans_jobs(rules.privgene_kmeans_job.output[0]),
        code=script_code("privgene/comparison_pairs.py"),
    output:
        **{
            f"pairs_{k}": v
            for k, v in published(PG, "comparison_pairs", TABLE, "privgene_comparison_pairs.rst").items()
        },
        **{
            f"summary_{k}": v
            for k, v in published(PG, "comparison_summary", TABLE, "privgene_comparison_summary.rst").items()
        },
        **{
            f"levels_{k}": v
            for k, v in published(PG, "comparison_levels", TABLE, "privgene_comparison_levels.rst").items()
        },
    log:
        f"{LOGS}/{PG}/comparison_pairs.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/comparison_pairs.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "comparison_pairs"),
    message:
        "PrivGene: paired differences, their summary and each method's level across Figs 3-5"
    script:
        "../scripts/privgene/comparison_pairs.py"


rule privgene_paper_r_comparison_job:
    """PrivGene at the paper's r for the small ε of the grid on the smaller US/BR copies (c
    rescaled); the same streams as the main PrivGene job, so the pair differs only in r."""
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/paper_r_comparison_job.py"),
    output:
        f"{PG_WORK}/comparison_paper_r/{{pg_dataset}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/comparison_paper_r/{{pg_dataset}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/comparison_paper_r/{{pg_dataset}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "paper_r_comparison_job"),
        seed=SEED,
    message:
        "PrivGene: Figs 3–4 at the paper's r, {wildcards.pg_dataset} LR and SVM, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/paper_r_comparison_job.py"


rule privgene_paper_r_comparison:
    input:
        jobs=privgene_paper_r_jobs(rules.privgene_paper_r_comparison_job.output[0]),
        code=script_code("privgene/paper_r_comparison.py"),
    output:
        **published(PG, "small_epsilon_paper_r", PRIVATE_TABLE, "privgene_small_epsilon_paper_r.rst"),
    log:
        f"{LOGS}/{PG}/small_epsilon_paper_r.log",
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "paper_r_comparison"),
    message:
        "PrivGene: is the small-ε gap to PrivateERM on US/BR the smaller r? (paired, paper's r)"
    script:
        "../scripts/privgene/paper_r_comparison.py"


# ---------------------------------------------------------------- the open gaps measured (issue 12)
PGA = f"{PG}/ablations"


rule privgene_reachable_set:
    """The best non-private LR/SVM inside the (relaxed) set the mutation schedule reaches in r
    selections, at ε = 1's r and the paper's r, beside NoPrivacy and PrivGene on the same folds."""
    input:
        data=[privgene_data(name) for name in settings(f"{PGA}/reachable_set")["datasets"]],
        tuned_C=[
            rules.privgene_svm_c.output[0].format(pg_dataset=name)
            for name in settings(f"{PGA}/reachable_set")["datasets"]
        ],
        code=script_code("privgene/reachable_set.py"),
    output:
        **published(
            PG,
            "reachable_set",
            ("csv", "md", "json"),
            "privgene_reachable_set.rst",
            drawing="privgene_ablations.reachable_set_bars",
        ),
    log:
        f"{LOGS}/{PG}/reachable_set.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/reachable_set.tsv"
    priority: CRITICAL_PATH
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "reachable_set"),
        seed=SEED,
    message:
        "PrivGene: how far can the mutation schedule move the weights? best reachable LR/SVM vs NoPrivacy"
    script:
        "../scripts/privgene/reachable_set.py"


rule privgene_schedule_ablation_job:
    input:
        unpack(lambda w: {"tuned_C": f"{PG_WORK}/reference/{w.pg_dataset}/svm_C.csv"} if w.task == "svm" else {}),
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/schedule_ablation_job.py"),
    output:
        f"{PG_WORK}/schedule_ablation/{{pg_dataset}}/{{task}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/schedule_ablation/{{pg_dataset}}/{{task}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/schedule_ablation/{{pg_dataset}}/{{task}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "schedule_ablation_job"),
        seed=SEED,
    message:
        "PrivGene: mutation schedules at one ε, {wildcards.pg_dataset} {wildcards.task} repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/schedule_ablation_job.py"


rule privgene_schedule_ablation:
    input:
        jobs=expand(
            rules.privgene_schedule_ablation_job.output[0],
            pg_dataset=settings(f"{PGA}/schedules")["datasets"],
            task=["lr", "svm"],
            repetitions=repetition_batches(settings(f"{PGA}/schedules")["repetitions"]),
        ),
        code=script_code("privgene/schedule_ablation.py"),
    output:
        **published(
            PG,
            "schedule_ablation",
            ("csv", "md", "json", "ledger"),
            "privgene_schedule_ablation.rst",
            drawing="privgene_ablations.schedule_points",
        ),
    log:
        f"{LOGS}/{PG}/schedule_ablation.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/schedule_ablation.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "schedule_ablation"),
    message:
        "PrivGene: additive decay and larger first steps against the paper's schedule (paired, spec §9)"
    script:
        "../scripts/privgene/schedule_ablation.py"


rule privgene_choice_of_c_epsilon_job:
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/choice_of_c_epsilon_job.py"),
    output:
        f"{PG_WORK}/choice_of_c_epsilon/{{pg_dataset}}/{{task}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/choice_of_c_epsilon/{{pg_dataset}}/{{task}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/choice_of_c_epsilon/{{pg_dataset}}/{{task}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "choice_of_c_epsilon_job"),
        seed=SEED,
    message:
        "PrivGene: Fig. 2 at other ε, {wildcards.pg_dataset} {wildcards.task} repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/choice_of_c_epsilon_job.py"


rule privgene_choice_of_c_epsilon:
    input:
        jobs=expand(
            rules.privgene_choice_of_c_epsilon_job.output[0],
            pg_dataset=settings(f"{PG}/choice_of_c")["datasets"],
            task=settings(f"{PG}/choice_of_c")["tasks"],
            repetitions=repetition_batches(settings(f"{PGA}/choice_of_c")["repetitions"]),
        ),
        code=script_code("privgene/choice_of_c_epsilon.py"),
    output:
        **published(
            PG,
            "fig2_by_epsilon",
            ("csv", "md", "json", "ledger"),
            "privgene_fig2_by_epsilon.rst",
            drawing="privgene_ablations.pooled_ratio_against_c",
            tables=["fig2_by_epsilon_curves"],
        ),
        **{f"curves_{k}": v for k, v in published(PG, "fig2_by_epsilon_curves", FIGURE).items()},
    log:
        f"{LOGS}/{PG}/fig2_by_epsilon.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/fig2_by_epsilon.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "choice_of_c_epsilon"),
    message:
        "PrivGene: Fig. 2 at the small ε of the grid and averaged over them"
    script:
        "../scripts/privgene/choice_of_c_epsilon.py"


rule privgene_gupt_variants_job:
    """One Fig. 5 panel, all runs: the block fits are shared by the variants."""
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/gupt_variants_job.py"),
    output:
        f"{PG_WORK}/gupt_variants/{{pg_dataset}}/k{{k}}.csv",
    log:
        f"{LOGS}/{PG}/gupt_variants/{{pg_dataset}}/k{{k}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/gupt_variants/{{pg_dataset}}/k{{k}}.tsv"
    wildcard_constraints:
        **{**PG_WILDCARDS, "pg_dataset": "Lifesci|Image", "k": r"\d+"},
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "gupt_variants_job"),
        seed=SEED,
    message:
        "PrivGene: Fig. 5 GUPT variants at one ε, {wildcards.pg_dataset} k={wildcards.k}"
    script:
        "../scripts/privgene/gupt_variants_job.py"


rule privgene_gupt_variants:
    input:
        jobs=[
            path
            for dataset, ks in settings(f"{PG}/comparison")["kmeans"]["panels"].items()
            for path in expand(rules.privgene_gupt_variants_job.output[0], pg_dataset=dataset, k=ks)
        ],
        code=script_code("privgene/gupt_variants.py"),
    output:
        **published(
            PG,
            "fig5_gupt_variants",
            ("csv", "md", "json", "ledger"),
            "privgene_fig5_gupt_variants.rst",
            drawing="privgene_ablations.gupt_variant_bars",
        ),
    log:
        f"{LOGS}/{PG}/fig5_gupt_variants.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/fig5_gupt_variants.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "gupt_variants"),
    message:
        "PrivGene: Fig. 5's 'about 100x' at ε = 0.1 under GUPT's ε split, output clamping and own range estimate"
    script:
        "../scripts/privgene/gupt_variants.py"


# ---------------------------------------------------------------- PrivateERM cross-checked (issue #32 item 8)
PGB_SECTION = "ablations/baseline_checks"
PGB = f"{PG}/{PGB_SECTION}"


rule privgene_baseline_checks_job:
    """One dataset, a batch of repetitions: diffprivlib's objective perturbation (LR and Huber
    SVM, PrivateERM's Λ and h) at every Figs 3–4 ε on the Figs 3–4 folds, and our PrivateERM LR
    over the Λ grid at one ε; each (method, task, Λ, ε, repetition, fold) draws its own stream
    (spec §3.4)."""
    input:
        data=privgene_data("{pg_dataset}"),
        code=script_code("privgene/baseline_checks_job.py"),
    output:
        f"{PG_WORK}/baseline_checks/{{pg_dataset}}/reps{{repetitions}}.csv",
    log:
        f"{LOGS}/{PG}/baseline_checks/{{pg_dataset}}/reps{{repetitions}}.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/baseline_checks/{{pg_dataset}}/reps{{repetitions}}.tsv"
    wildcard_constraints:
        **PG_WILDCARDS,
    conda:
        ENVIRONMENT
    params:
        settings=rule_settings(PG, "baseline_checks_job"),
        seed=SEED,
    message:
        "PrivGene: diffprivlib's PrivateERM and ours over Λ, {wildcards.pg_dataset}, repetitions {wildcards.repetitions}"
    script:
        "../scripts/privgene/baseline_checks_job.py"


rule privgene_baseline_checks:
    input:
        jobs=privgene_jobs(
            rules.privgene_baseline_checks_job.output[0], PGB_SECTION, pg_dataset=settings(PGB)["datasets"]
        ),
        # our PrivateERM runs, as Figs 3–4 publish them
        comparison=privgene_comparison_jobs(
            rules.privgene_comparison_job.output[0], settings(PGB)["tasks"], settings(PGB)["datasets"]
        ),
        references=privgene_comparison_references(["lr"]),  # NoPrivacy on the same folds, as Figs 3–4 read it
        code=script_code("privgene/baseline_checks.py"),
    output:
        **published(PG, "baseline_checks", PRIVATE_TABLE),
    log:
        f"{LOGS}/{PG}/baseline_checks.log",
    benchmark:
        f"{BENCHMARKS}/{PG}/baseline_checks.tsv"
    conda:
        ENVIRONMENT
    params:
        seed=SEED,
        settings=rule_settings(PG, "baseline_checks"),
    message:
        "PrivGene: does PrivateERM agree with diffprivlib, and does any Λ close its gap to NoPrivacy? (paired by fold)"
    script:
        "../scripts/privgene/baseline_checks.py"
