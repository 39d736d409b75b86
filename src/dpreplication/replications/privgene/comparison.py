"""PrivGene Figs 3–5: PrivGene against the baselines over the ε grid (spec ``privgene.md`` §3–§5).

A comparison job (:func:`~dpreplication.replications.privgene.jobs.comparison`) is one (dataset,
task, method, repetition) and runs the method on the five shared folds of that repetition at
**every ε of the grid**, one row per (fold, ε). One job per method rather than per ε because the
costly part of three baselines does not depend on ε and is prepared once per fold: GUPT's block
fits (§3.6), PrivateSVM's non-private weights (§3.5), and NoPrivacy, which is not rerun at all (its
rows come from the reference jobs, same folds). Every (fold, ε) draws from its own stream, so a
value at one ε does not depend on the rest of the grid (the quick and default profiles agree on
the ε they share). Fig. 5 jobs are one (dataset, k, method, run) on the full scaled data (spec §4
default), again over the whole grid.

This module runs the small-ε ablation that pairs PrivGene at the paper's r with the baselines; each
job's settings come from :mod:`dpreplication.replications.privgene.rule_settings`.
"""

from __future__ import annotations

import pandas as pd

from dpreplication.data import tabular
from dpreplication.learning.genetic import iterations
from dpreplication.learning.protocol import mean_confidence_interval
from dpreplication.replications.privgene.jobs import comparison, run_job
from dpreplication.replications.privgene.methods import METHODS, training_size

PAPER_R_METHOD = "PrivGene, paper's r"


def paper_r_comparison_job(
    data: tabular.TabularData,
    task: str,
    repetition: int,
    *,
    seed: int,
    epsilons,
    paper_training_rows: int,
    privgene: dict,
    privateerm: dict,
    fm: dict,
) -> pd.DataFrame:
    """Figs 3–4 ablation at small ε: PrivGene with the number of selections the paper's larger dataset gives.

    ``r = max(1, round(c · n_paper · ε))``, ``c`` rescaled so that our training folds give that r,
    beside PrivGene at our r, PrivateERM and (LR only) FM. Every (fold, ε) uses the stream of the
    main jobs, so the baselines' rows reproduce the main jobs' values at these ε and the pair
    differs only in r. Columns: those of :func:`~dpreplication.replications.privgene.jobs.run_job`
    plus ``paper_r``; the ablation's ``method`` is :data:`PAPER_R_METHOD`.

    Parameters
    ----------
    privgene, privateerm, fm : dict
        The :func:`~dpreplication.replications.privgene.rule_settings.job_settings` of those methods (without ``epsilons``).
    """
    baselines = {"PrivGene": privgene, "PrivateERM": privateerm, "FM": fm}
    frames = [
        run_job(data, comparison(task, method, epsilons=epsilons, **settings), repetition, seed=seed)
        for method, settings in baselines.items()
        if method in METHODS[task]
    ]
    n_train = training_size(len(data.features), privgene["folds"])
    algorithm = privgene["algorithm"]
    for epsilon in epsilons:
        paper_r = iterations(algorithm["c"], paper_training_rows, epsilon, 1)
        rescaled = {**privgene, "algorithm": {**algorithm, "c": paper_r / (n_train * epsilon)}}
        frame = run_job(data, comparison(task, "PrivGene", epsilons=[epsilon], **rescaled), repetition, seed=seed)
        if not (frame.r == paper_r).all():
            raise ValueError(f"{data.name}: rescaled c gives r = {sorted(set(frame.r))}, not {paper_r}")
        frames.append(frame.assign(method=PAPER_R_METHOD, paper_r=paper_r))
    return pd.concat(frames, ignore_index=True)


PAPER_R_BASELINES = ("PrivateERM", "FM")
"""The baselines the paper's-r PrivGene is paired with (FM in the LR series only)."""


def paper_r_summary(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task, ε): PrivGene's error at our r and at the paper's r, and each baseline's.

    With the paired differences (paper's r − baseline, our r − baseline) and the 95 % CI of the
    first, over the same folds and streams, for each of :data:`PAPER_R_BASELINES` the task runs
    (NaN for FM under SVM).
    """
    keys = ["dataset", "task", "repetition", "fold", "epsilon"]
    methods = ["PrivGene", PAPER_R_METHOD, *PAPER_R_BASELINES]  # a baseline the task lacks: NaN
    wide = jobs.pivot_table(index=keys, columns="method", values="error").reset_index().reindex(columns=keys + methods)
    r_ours = jobs[jobs.method == "PrivGene"].groupby(["dataset", "task", "epsilon"]).r.mean()
    r_paper = jobs[jobs.method == PAPER_R_METHOD].groupby(["dataset", "task", "epsilon"]).paper_r.first()
    rows = []
    for (dataset, task, epsilon), group in wide.groupby(["dataset", "task", "epsilon"]):
        row = {
            "dataset": dataset,
            "task": task,
            "epsilon": epsilon,
            "runs": len(group),
            "r_ours": float(r_ours[(dataset, task, epsilon)]),
            "r_paper": int(r_paper[(dataset, task, epsilon)]),
            "privgene_error": float(group["PrivGene"].mean()),
            "privgene_paper_r_error": float(group[PAPER_R_METHOD].mean()),
        }
        for baseline in PAPER_R_BASELINES:
            name = baseline.lower()
            difference = mean_confidence_interval(group[PAPER_R_METHOD] - group[baseline])
            row |= {
                f"{name}_error": float(group[baseline].mean()),
                f"paper_r_minus_{name}": difference["mean"],
                f"paper_r_minus_{name}_ci_low": difference["ci_low"],
                f"paper_r_minus_{name}_ci_high": difference["ci_high"],
                f"ours_minus_{name}": float((group["PrivGene"] - group[baseline]).mean()),
            }
        rows.append(row)
    return pd.DataFrame(rows)
