"""PrivGene: experiments that measure the causes of the gaps to the paper (spec ``privgene.md`` §5, §9).

* **Reachable set** — :func:`reachable_set_table`: the best non-private LR / SVM among the models
  PrivGene's mutation schedule can reach in r selections (the convex relaxation of
  :mod:`dpreplication.learning.reachable`), at ε = 1's r on our training folds and at the paper's
  r, beside NoPrivacy and PrivGene at ε = 1 on the same folds: how much of PrivGene's distance to
  NoPrivacy the schedule alone imposes.
* **Schedule ablation** (§9) — :func:`schedule_ablation_job`: PrivGene at one ε with other
  mutation schedules (additive decay, larger first steps), on the streams of the Figs 3–4
  PrivGene job, so the default schedule reproduces it and every pair differs only in the schedule.
* **Fig. 2 at other ε** — :func:`choice_of_c_epsilon_job` / :func:`choice_of_c_by_epsilon`: the
  choice-of-c curve at the small ε of the grid (the paper does not state Fig. 2's ε; the main rule
  runs ε = 1) and averaged over these ε.
* **GUPT variants for Fig. 5** — in :mod:`dpreplication.replications.privgene.gupt_variants`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.data import tabular
from dpreplication.learning import models
from dpreplication.learning.fitness import LinearFitness
from dpreplication.learning.genetic import iterations
from dpreplication.learning.protocol import mean_confidence_interval, repetition_folds
from dpreplication.learning.reachable import fit_in_reachable_set, reach_radius
from dpreplication.replications.privgene import PAPER, jobs
from dpreplication.replications.privgene.figures import choice_of_c, choice_of_c_summary
from dpreplication.replications.privgene.methods import task_labels, training_size

# =========================================================================== (a) reachable set

REACH_SETTINGS = ("ours", "paper", "box")
"""r at ε = 1 on our training folds, the paper's r (its training size), and no ℓ1 limit (the box only)."""


def noprivacy_on_folds(
    data, task: str, repetition: int, *, seed: int, svm_C: float | None, folds: int, use_folds
) -> pd.Series:
    """NoPrivacy's test error per fold of ``repetition`` (the reference job of Figs 3–4, same folds)."""
    job = jobs.reference(task, "NoPrivacy", epsilon=1.0, svm_C=svm_C, folds=folds, use_folds=use_folds)
    frame = jobs.run_job(data, job, repetition, seed=seed)
    return frame.set_index("fold").error


def reachable_set_table(
    data: dict[str, tabular.TabularData],
    tuned_C: dict[str, float],
    *,
    seed: int,
    algorithm: dict,
    paper_training_rows: dict[str, int],
    epsilon: float = 1.0,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """Per (dataset, task, setting): the test error of the loss minimiser over the relaxed reachable set ``K_ρ``.

    ``K_ρ`` is that of :mod:`dpreplication.learning.reachable`; the folds are the shared folds of
    repetition 0.

    ``ρ = reach_radius(r)`` for r at ``ε`` with our training size (``ours``) and with the paper's
    (``paper``); ``box``: no ℓ1 limit. Beside it, on the same folds: NoPrivacy (LR; SVM with the
    tuned C of ``tuned_C``) and PrivGene at ``ε`` on the streams of the Figs 3–4 job (repetition 0).
    ``gap_share = (error − NoPrivacy)/(PrivGene − NoPrivacy)``: the part of PrivGene's distance to
    NoPrivacy that the best reachable model already has; ``l1_norm``: mean ‖α‖₁ of the minimiser.
    """
    first = algorithm["initial_scale"] * 2 * LinearFitness.bound  # s₁ = 5 % of [-5, 5]
    rows = []
    for name, item in data.items():
        splits = repetition_folds(len(item.features), folds, seed, PAPER, name, 0)
        chosen = range(folds) if use_folds is None else use_folds
        n_train = training_size(len(item.features), folds)
        r_of = {
            "ours": iterations(algorithm["c"], n_train, epsilon, 1),
            "paper": iterations(algorithm["c"], paper_training_rows[name], epsilon, 1),
            "box": None,
        }
        for task in ("lr", "svm"):
            noprivacy = float(
                noprivacy_on_folds(
                    item,
                    task,
                    0,
                    seed=seed,
                    svm_C=tuned_C[name] if task == "svm" else None,
                    folds=folds,
                    use_folds=use_folds,
                ).mean()
            )
            job = jobs.comparison(
                task, "PrivGene", epsilons=[epsilon], algorithm=algorithm, folds=folds, use_folds=use_folds
            )
            privgene_error = float(jobs.run_job(item, job, 0, seed=seed).error.mean())
            privgene_gap = privgene_error - noprivacy
            for setting in REACH_SETTINGS:
                r = r_of[setting]
                radius = None if r is None else reach_radius(r, first, algorithm["decay"], algorithm["schedule"])
                errors, norms = [], []
                for fold in chosen:
                    train, test = splits[fold]
                    omega = fit_in_reachable_set(
                        item.features[train],
                        task_labels(task, item.labels[train]),
                        task,
                        radius,
                        bound=LinearFitness.bound,
                        C=algorithm["svm_C"],
                    )
                    norms.append(float(np.abs(omega[:-1]).sum()))
                    errors.append(
                        models.misclassification_rate(
                            item.features[test], task_labels(task, item.labels[test]), omega, task
                        )
                    )
                error = float(np.mean(errors))
                rows.append(
                    {
                        "dataset": name,
                        "task": task,
                        "setting": setting,
                        "epsilon": epsilon,
                        "r": np.nan if r is None else r,
                        "radius": np.nan if radius is None else radius,
                        "max_coordinates": np.nan if r is None else r - 1,
                        "folds": len(errors),
                        "l1_norm": float(np.mean(norms)),
                        "error": error,
                        "noprivacy_error": noprivacy,
                        "privgene_error": privgene_error,
                        "above_noprivacy": error - noprivacy,
                        "privgene_above_noprivacy": privgene_gap,
                        "gap_share": (error - noprivacy) / privgene_gap,
                    }
                )
    return pd.DataFrame(rows)


# =========================================================================== (b) schedule ablation


def schedule_ablation_job(
    data: tabular.TabularData,
    task: str,
    repetition: int,
    *,
    seed: int,
    epsilon: float,
    algorithm: dict,
    schedules: dict[str, dict],
    svm_C: float | None = None,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """PrivGene (EEM, m' = 1) at ``ε`` with each mutation schedule of ``schedules``.

    On the Figs 3–4 PrivGene job's folds and streams. Columns of
    :func:`~dpreplication.replications.privgene.jobs.run_job` plus ``schedule``,
    ``radius`` (the ℓ1 reach of the schedule in r selections) and ``noprivacy_error`` (NoPrivacy on
    the same fold; SVM with the tuned ``svm_C``).

    Parameters
    ----------
    schedules : dict of str to dict
        Name → ``initial_scale``, ``decay``, ``schedule`` and optional ``max_iterations``: r capped
        there, c rescaled, as the additive schedule needs (spec §9).
    """
    n_train = training_size(len(data.features), folds)
    frames = []
    for name, change in schedules.items():
        changed = {**algorithm, **{key: change[key] for key in ("initial_scale", "decay", "schedule")}}
        r = iterations(algorithm["c"], n_train, epsilon, 1)
        if change.get("max_iterations") is not None and r > change["max_iterations"]:
            r = int(change["max_iterations"])
            changed["c"] = r / (n_train * epsilon)
        job = jobs.comparison(task, "PrivGene", epsilons=[epsilon], algorithm=changed, folds=folds, use_folds=use_folds)
        frame = jobs.run_job(data, job, repetition, seed=seed)
        if not (frame.r == r).all():
            raise ValueError(f"{data.name} {name}: r = {sorted(set(frame.r))}, expected {r}")
        radius = reach_radius(
            r, changed["initial_scale"] * 2 * LinearFitness.bound, changed["decay"], changed["schedule"]
        )
        frames.append(frame.assign(schedule=name, radius=radius))
    noprivacy = noprivacy_on_folds(
        data, task, repetition, seed=seed, svm_C=svm_C, folds=folds, use_folds=use_folds
    ).rename("noprivacy_error")
    return pd.concat(frames, ignore_index=True).merge(noprivacy, left_on="fold", right_index=True)


def schedule_ablation_summary(jobs: pd.DataFrame, baseline: str = "default") -> pd.DataFrame:
    """Per (dataset, task, schedule): r, ℓ1 reach, mean error (95 % CI) and the paired difference to ``baseline``.

    The paired difference to the ``baseline`` schedule (same folds and streams), in columns
    ``minus_<baseline>``, comes with its CI;
    beside them, NoPrivacy's mean error on the same folds and ``above_noprivacy``, the mean paired
    excess over it.
    """
    keys = ["dataset", "task", "repetition", "fold"]
    rows = []
    for (dataset, task), panel in jobs.groupby(["dataset", "task"], sort=False):
        epsilon = float(panel.epsilon.iloc[0])
        base = panel[panel.schedule == baseline].set_index(keys).error
        for schedule, runs in panel.groupby("schedule", sort=False):
            errors = runs.set_index(keys).error
            error = mean_confidence_interval(errors.to_numpy())
            difference = mean_confidence_interval((errors - base.reindex(errors.index)).to_numpy())
            rows.append(
                {
                    "dataset": dataset,
                    "task": task,
                    "schedule": schedule,
                    "epsilon": epsilon,
                    "r": float(runs.r.mean()),
                    "radius": float(runs.radius.iloc[0]),
                    "runs": error["runs"],
                    "error": error["mean"],
                    "error_ci_low": error["ci_low"],
                    "error_ci_high": error["ci_high"],
                    f"minus_{baseline}": difference["mean"],
                    f"minus_{baseline}_ci_low": difference["ci_low"],
                    f"minus_{baseline}_ci_high": difference["ci_high"],
                    "noprivacy_error": float(runs.noprivacy_error.mean()),
                    "above_noprivacy": float((runs.error - runs.noprivacy_error).mean()),
                }
            )
    return pd.DataFrame(rows)


# =========================================================================== (d) Fig. 2 at other ε


def choice_of_c_epsilon_job(
    data,
    task: str,
    c: float,
    repetition: int,
    *,
    seed: int,
    epsilons,
    algorithm: dict,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """Run the Fig. 2 job at each ε of ``epsilons``.

    The job is :func:`~dpreplication.replications.privgene.jobs.choice_of_c`, with the same streams.
    """
    return pd.concat(
        [
            jobs.run_job(
                data,
                jobs.choice_of_c(task, c, epsilon=float(e), algorithm=algorithm, folds=folds, use_folds=use_folds),
                repetition,
                seed=seed,
            )
            for e in epsilons
        ],
        ignore_index=True,
    )


GRID = "grid mean"
"""The ``epsilon`` label of the rows averaged over the ε of the table."""


def choice_of_c_by_epsilon(jobs: pd.DataFrame, reference_c: float, paper_c: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 2 per ε: the curve table of the ``jobs`` at each of their ε, and the U-shape summary.

    The curve table is :func:`~dpreplication.replications.privgene.figures.choice_of_c`; the
    U-shape summary (:func:`~dpreplication.replications.privgene.figures.choice_of_c_summary`)
    covers every ε and the ``grid mean`` (each panel's ratio averaged over these ε, then pooled over
    panels; its interval the mean of the per-ε intervals, as interval arithmetic gives).

    Returns
    -------
    curves, summary : pandas.DataFrame
        Both carry ``epsilon`` as a string label (``"0.1"``, ``"grid mean"``).
    """
    tables = [choice_of_c(group, reference_c) for _, group in jobs.groupby("epsilon", sort=True)]
    curves = pd.concat(tables, ignore_index=True)
    curves["epsilon"] = curves.epsilon.map(lambda e: f"{float(e):g}")
    grid = curves.groupby(["dataset", "task", "c", "c_x1e3"], as_index=False, sort=False).agg(
        ratio=("ratio", "mean"),
        ratio_ci_low=("ratio_ci_low", "mean"),
        ratio_ci_high=("ratio_ci_high", "mean"),
        runs=("runs", "min"),
    )
    summaries = [
        choice_of_c_summary(block, paper_c).assign(epsilon=label)
        for label, block in [*curves.groupby("epsilon", sort=False), (GRID, grid)]
    ]
    summary = pd.concat(summaries, ignore_index=True)
    return curves, summary[["epsilon", *[c for c in summary.columns if c != "epsilon"]]]
