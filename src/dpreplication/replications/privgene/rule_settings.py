"""What each PrivGene rule computes with, shaped in one place from the config's ``privgene`` section.

:func:`rule_settings` is the one function the Snakefile reads a PrivGene rule's ``settings`` param
from. A job's settings hold what its numbers depend on and nothing else (not the repetition
count, nor another method's keys), so that a config edit reruns exactly the jobs it changes.
Each rule's shape is a plain function of the section and the job's wildcards, found by the rule's
name in :data:`RULES`. Pure dictionaries: the Snakefile imports this module at DAG build.
"""

from __future__ import annotations

from types import SimpleNamespace

METHOD_SETTINGS: dict[str, tuple[str, ...]] = {
    "PrivGene": ("algorithm",),
    "PrivateERM": ("erm_lr_regulariser", "erm_svm_regulariser", "erm_huber_h", "svm_C"),
    "FM": (),
    "PrivateSVM": ("svm_C",),
    "GUPT": ("gupt_eps_fraction", "svm_C"),
    "Majority": (),
}
"""The config keys (of ``privgene.comparison``, plus ``algorithm`` and ``svm_C``) each method uses:
a job's settings hold only its methods' keys, so that changing an unused key reruns nothing."""
KMEANS_SETTINGS: dict[str, tuple[str, ...]] = {
    "PrivGene": ("algorithm",),
    "GUPT": ("gupt_eps_fraction", "restarts", "max_iter"),
    "NoPrivacy": ("restarts", "max_iter"),
}
"""The same for Fig. 5's k-means jobs (keys of ``privgene.comparison`` and its ``kmeans`` part)."""


def job_settings(section: dict, algorithm: dict, protocol: dict, method: str) -> dict:
    """Keyword arguments of :func:`~dpreplication.replications.privgene.jobs.comparison` for ``method``.

    The sections are ``privgene.comparison``, ``privgene.algorithm`` and ``privgene.protocol``.
    """
    pool = {**section, "algorithm": algorithm, "svm_C": algorithm["svm_C"]}
    return {"epsilons": section["epsilons"], **protocol, **{key: pool[key] for key in METHOD_SETTINGS[method]}}


def kmeans_job_settings(section: dict, algorithm: dict, method: str) -> dict:
    """Keyword arguments of :func:`~dpreplication.replications.privgene.jobs.kmeans` for ``method``.

    The sections are ``privgene.comparison`` and its ``kmeans`` subsection.
    """
    pool = {**section, **section["kmeans"], "algorithm": algorithm}
    return {"epsilons": section["epsilons"], **{key: pool[key] for key in KMEANS_SETTINGS[method]}}


def figure_job(pg: dict, figure: str, *batched: str, algorithm: bool = True) -> dict:
    """Shape one job of ``figure``: its ε, the CV protocol, the keys ``batched`` into the job.

    The batched keys are what the job loops over (its grid of c, its variants); PrivGene jobs
    also take the algorithm's parameters.
    """
    section = pg[figure]
    job = {"epsilon": section["epsilon"], **{key: section[key] for key in batched}, **pg["protocol"]}
    return {**job, "algorithm": pg["algorithm"]} if algorithm else job


def c_label(c: float) -> str:
    """Return the ``c`` wildcard of a Fig. 2 job: the shortest text that reads back as the same float."""
    return repr(float(c))


def choice_of_c_job(pg, wildcards):
    """One Fig. 2 job: its ε, the CV protocol, the algorithm, and the one c of the grid its wildcard names.

    A job holds one c, not the grid, so that a job's cost is one c's (the paper profile's longest
    job had looped over all twelve) and a grid edit reruns only the c it adds.
    """
    grid = {c_label(c): float(c) for c in pg["choice_of_c"]["c_grid"]}
    if wildcards.c not in grid:
        raise ValueError(f"c={wildcards.c} is not in privgene.choice_of_c.c_grid {sorted(grid)}")
    return {**figure_job(pg, "choice_of_c"), "c": grid[wildcards.c]}


def comparison_job(pg, wildcards):
    """Per method of the job's task (NoPrivacy aside: the reference jobs): :func:`job_settings`."""
    section = pg["comparison"]
    return {
        method: job_settings(section, pg["algorithm"], pg["protocol"], method)
        for method in section["methods"][wildcards.task]
        if method != "NoPrivacy"
    }


def comparison_extra_job(pg, wildcards):
    """Shape a second-stage job: its method's first-stage settings (NoPrivacy: the reference job's)."""
    if wildcards.method == "NoPrivacy":
        return figure_job(pg, "reference", algorithm=False)
    return comparison_job(pg, wildcards)[wildcards.method]


def comparison_plan(pg, wildcards):
    """Shape the second stage's plan: the first stage's repetitions, the runs per repetition, the cap and budget."""
    section, protocol = pg["comparison"], pg["protocol"]
    folds = len(protocol["use_folds"] or range(protocol["folds"]))
    return {
        "datasets": section["datasets"],
        "methods": section["methods"],
        "repetitions": section["repetitions"],
        "folds": folds,
        **section["second_stage"],
    }


def kmeans_job(pg, wildcards):
    """Per configured k-means method: the ε grid and that method's keys."""
    section = pg["comparison"]
    return {method: kmeans_job_settings(section, pg["algorithm"], method) for method in section["kmeans"]["methods"]}


def paper_r_comparison_job(pg, wildcards):
    """Shape the paper's-r ablation: the PrivGene, PrivateERM and FM jobs' keys, its ε subset, the paper's rows."""
    section = pg["comparison"]
    methods = {
        method.lower(): {
            key: value
            for key, value in job_settings(section, pg["algorithm"], pg["protocol"], method).items()
            if key != "epsilons"
        }
        for method in ("PrivGene", "PrivateERM", "FM")
    }
    paper_r = section["paper_r"]
    return {
        **methods,
        "epsilons": paper_r["epsilons"],
        "tasks": ["lr", "svm"],
        "paper_training_rows": paper_r["paper_training_rows"][wildcards.pg_dataset],
    }


def paper_r_job(pg, wildcards):
    """Figs 6–7 at the paper's r on one dataset: the EEM-vs-EM job's keys and that dataset's r."""
    return {
        **figure_job(pg, "eem_vs_em", "paper_iteration_variants"),
        "paper_r": pg["eem_vs_em"]["paper_iterations"][wildcards.pg_dataset],
    }


def with_algorithm(pg, section: dict, **more) -> dict:
    """Put the algorithm's parameters (and ``more``) beside a section."""
    return {**section, "algorithm": pg["algorithm"], **more}


def schedule_ablation_job(pg, wildcards):
    """One job of the mutation-schedule ablation: its ε and variants, the algorithm, the CV protocol."""
    section = pg["ablations"]["schedules"]
    return {
        **{key: value for key, value in section.items() if key in ("epsilon", "variants")},
        "algorithm": pg["algorithm"],
        **pg["protocol"],
    }


def choice_of_c_epsilon_job(pg, wildcards):
    """One job of the choice of c across ε: the ablation's ε, Fig. 2's grid of c, the algorithm, the protocol."""
    return {
        "epsilons": pg["ablations"]["choice_of_c"]["epsilons"],
        "c_grid": pg["choice_of_c"]["c_grid"],
        "algorithm": pg["algorithm"],
        **pg["protocol"],
    }


def gupt_variants_job(pg, wildcards):
    """One job of the GUPT variants: the ablation's keys, the algorithm and Fig. 5's k-means settings."""
    kmeans = pg["comparison"]["kmeans"]
    return with_algorithm(pg, pg["ablations"]["gupt"], **{key: kmeans[key] for key in ("runs", "restarts", "max_iter")})


def baseline_checks_job(pg, wildcards):
    """One job of the baseline checks: its tasks and Λ sweep, the Figs 3–4 ε grid and PrivateERM settings, the CV protocol."""
    section, comparison = pg["ablations"]["baseline_checks"], pg["comparison"]
    pool = {**comparison, "svm_C": pg["algorithm"]["svm_C"]}
    return {
        **{key: section[key] for key in ("tasks", "sweep_epsilon", "sweep_regularisers")},
        "epsilons": comparison["epsilons"],
        "private_erm": {key: pool[key] for key in METHOD_SETTINGS["PrivateERM"]},
        **pg["protocol"],
    }


RULES = {
    "dataset": lambda pg, w: pg["data"],
    "table2": lambda pg, w: pg["data"],
    "choice_of_c_job": choice_of_c_job,
    "choice_of_c": lambda pg, w: {**pg["choice_of_c"], "paper_c": pg["algorithm"]["c"]},
    "eem_vs_em_job": lambda pg, w: figure_job(pg, "eem_vs_em", "variants"),
    "paper_r_job": paper_r_job,
    "svm_c": lambda pg, w: {"grid": pg["reference"]["svm_C_grid"], **pg["protocol"]},
    "reference_job": lambda pg, w: figure_job(pg, "reference", "datasets", "tasks", "methods", algorithm=False),
    "reference_levels": lambda pg, w: pg["reference"],
    "eem_vs_em": lambda pg, w: with_algorithm(pg, pg["eem_vs_em"]),
    "verified_numbers": lambda pg, w: with_algorithm(pg, pg["verified_numbers"], folds=pg["protocol"]["folds"]),
    "comparison_job": comparison_job,
    "kmeans_job": kmeans_job,
    "comparison_plan": comparison_plan,
    "comparison_extra_job": comparison_extra_job,
    "comparison_figure": lambda pg, w: pg["comparison"],
    "kmeans_figure": lambda pg, w: {
        "epsilons": pg["comparison"]["epsilons"],
        "gupt_eps_fraction": pg["comparison"]["gupt_eps_fraction"],
        **pg["comparison"]["kmeans"],
    },
    "comparison_pairs": lambda pg, w: pg["comparison"],
    "paper_r_comparison_job": paper_r_comparison_job,
    "paper_r_comparison": lambda pg, w: pg["comparison"]["paper_r"],
    "reachable_set": lambda pg, w: with_algorithm(pg, pg["ablations"]["reachable_set"], folds=pg["protocol"]["folds"]),
    "schedule_ablation_job": schedule_ablation_job,
    "schedule_ablation": lambda pg, w: pg["ablations"]["schedules"],
    "choice_of_c_epsilon_job": choice_of_c_epsilon_job,
    "choice_of_c_epsilon": lambda pg, w: {
        **pg["ablations"]["choice_of_c"],
        "reference_c": pg["choice_of_c"]["reference_c"],
        "paper_c": pg["algorithm"]["c"],
    },
    "gupt_variants_job": gupt_variants_job,
    "gupt_variants": lambda pg, w: pg["ablations"]["gupt"],
    "baseline_checks_job": baseline_checks_job,
    "baseline_checks": lambda pg, w: pg["ablations"]["baseline_checks"],
}
"""PrivGene rule (its name without ``privgene_``) -> its settings as a function of the section and wildcards."""


def rule_settings(rule: str, pg: dict, wildcards=None) -> dict:
    """Return the ``settings`` param of PrivGene rule ``privgene_<rule>`` from the ``privgene`` section ``pg``.

    ``wildcards`` are the job's (``pg_dataset``, ``task``, ``method``, ``c``) where its rule has them.
    An unknown rule is a ``KeyError`` that lists the known ones.
    """
    if rule not in RULES:
        raise KeyError(f"no settings for PrivGene rule {rule!r}; known: {sorted(RULES)}")
    return RULES[rule](pg, wildcards if wildcards is not None else SimpleNamespace())
