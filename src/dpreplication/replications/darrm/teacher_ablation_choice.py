"""DaRRM private prediction: the teacher ablation's choice of the best configuration, and its judgement.

The configurations and their trained teachers: :mod:`.teacher_ablation`.

The two-class test pool is split once, by a seeded draw (:func:`validation_mask`), into a
validation part and a query part. ``best`` marks the configuration within the stated budget whose
teachers are the most accurate on the validation part (mean over seeds and teachers); everything
the choice is then judged by — the teachers' accuracy, the exact expected accuracies of GNMax,
DaRRM_Sub and DaRRM_opt at the stated per-query budget ``(mε_teacher, mΔ)``, and the accuracy
table of the best configuration (:func:`best_configuration_accuracy`) — is computed on the query
part only, with its spread over the seeds. A row also reports the teachers' collapse
(:func:`~dpreplication.replications.darrm.teacher_quality.vote_diagnostics`) and ε of the
budget's accountant and of ours at the stated Δ.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.accounting import rdp
from dpreplication.learning.protocol import mean_confidence_interval
from dpreplication.replications.darrm import prediction
from dpreplication.replications.darrm import teacher_quality as quality
from dpreplication.replications.darrm.teacher_ablation import (
    PAPER,
    PLAN_COLUMNS,
    STATED,
    best_configuration_votes,
)
from dpreplication.tables import DATA_STATUS_COLUMN


def validation_mask(size: int, share: float, seed: int, dataset: str) -> np.ndarray:
    """``(size,)`` booleans: True for the pool images that choose the configuration, False for the query part.

    A seeded uniform draw of ``round(share·size)`` images, fixed by the config seed and the
    dataset, so every configuration and seed is chosen and judged on the same two parts.
    """
    if not 0 < share < 1:
        raise ValueError(f"the validation share must lie in (0, 1), got {share}")
    mask = np.zeros(size, dtype=bool)
    mask[seeding.generator(seed, PAPER, "validation", dataset).permutation(size)[: int(round(share * size))]] = True
    return mask


def restrict(arrays: dict, keep: np.ndarray) -> dict:
    """Votes ``(…, n_test)``, labels and test indices of a pool restricted to the images ``keep``."""
    return {
        "votes": arrays["votes"][..., keep],
        "labels": arrays["labels"][keep],
        "test_index": arrays["test_index"][keep],
    }


def aggregator_expectations(private_votes, nonprivate_votes, truth, settings: dict, m: int) -> dict:
    """Exact expected accuracy over the pool of GNMax, DaRRM_Sub and DaRRM_opt.

    At the stated per-query budget ``(mε_teacher, mΔ)``
    (:func:`~dpreplication.replications.darrm.prediction.expected_accuracies`).
    """
    dataset = settings["ablation"]["dataset"]
    epsilon, delta = prediction.query_budget(settings, dataset, m)
    sigma = rdp.gnmax_noise_scale(epsilon, delta, settings["gnmax_max_order"]).sigma
    gamma = prediction.gamma_opt(settings, dataset, m, settings["solver"])
    exact = prediction.expected_accuracies(private_votes, nonprivate_votes, truth, settings["classes"], m, sigma, gamma)
    return {f"{method}_expected": float(values.mean()) for method, values in exact.items()}


ABLATION_COLUMNS = [
    *PLAN_COLUMNS,
    "teachers",
    "seeds",
    "validation_images",
    "query_images",
    "validation_accuracy_mean",
    "validation_accuracy_seed_sd",
    "accuracy_mean",
    "accuracy_min",
    "accuracy_max",
    "rate_positive_class_mean",
    "collapsed_teachers",
    "votes_as_pipeline",
    "m",
    "gnmax_expected",
    "sub_expected",
    "opt_expected",
    "opt_minus_gnmax_expected",
    "opt_minus_gnmax_expected_seed_sd",
    "best",
    DATA_STATUS_COLUMN,
]


def seed_sd(values) -> float:
    """Sample standard deviation over seeds; NaN for a single seed."""
    return mean_confidence_interval(values)["std"]


def summary_row(config: dict, arrays: dict, rows: pd.DataFrame, mask: np.ndarray, cached: dict, settings: dict) -> dict:
    """Return the table row of ``config`` from its votes (all seeds) and per-teacher rows.

    Accuracies: validation part (the choice) and query part (the report); collapse: over the whole
    pool, summed over seeds. With all K teachers, the expected accuracies on the query part, mean
    over seeds, and the seed spread of DaRRM_opt − GNMax.
    """
    votes, labels = arrays["votes"], arrays["labels"]
    validation = (votes[..., mask] == labels[mask]).mean(axis=-1)
    queries = (votes[..., ~mask] == labels[~mask]).mean(axis=-1)
    first = rows.iloc[0]
    row = {
        **{column: first[column] for column in PLAN_COLUMNS},
        "teachers": votes.shape[1],
        "seeds": votes.shape[0],
        "validation_images": int(mask.sum()),
        "query_images": int((~mask).sum()),
        "validation_accuracy_mean": validation.mean(),
        "validation_accuracy_seed_sd": seed_sd(validation.mean(axis=1)),
        "accuracy_mean": queries.mean(),
        "accuracy_min": queries.min(),
        "accuracy_max": queries.max(),
        "rate_positive_class_mean": rows.rate_positive_class.mean(),
        "collapsed_teachers": int(rows.collapsed.sum()),
        "m": settings["ablation"]["m"],
        DATA_STATUS_COLUMN: "",
    }
    n = votes.shape[1]
    if config["name"] == STATED and config["epochs"] is None:
        row["votes_as_pipeline"] = float(np.mean(votes[0] == cached["private"]["votes"][:n]))
    if n == settings["teachers"]:
        query_nonprivate = restrict(cached["nonprivate"], ~mask)
        per_seed = pd.DataFrame(
            [
                aggregator_expectations(
                    seed_votes[:, ~mask], query_nonprivate["votes"], labels[~mask], settings, settings["ablation"]["m"]
                )
                for seed_votes in votes
            ]
        )
        row |= per_seed.mean().to_dict()
        gap = per_seed.opt_expected - per_seed.gnmax_expected
        row["opt_minus_gnmax_expected"], row["opt_minus_gnmax_expected_seed_sd"] = gap.mean(), seed_sd(gap)
    return row


def mark_best(table: pd.DataFrame) -> pd.DataFrame:
    """Mark as ``best`` the configuration within the stated budget most accurate on the validation part.

    On a tie, the first in the configured order.
    """
    table = table.copy()
    within = table.within_stated_budget.astype(bool)
    if not within.any():
        raise ValueError("no configuration of the ablation is within the stated budget")
    table["best"] = False
    table.loc[table.validation_accuracy_mean.where(within).idxmax(), "best"] = True
    return table


def ablation_table(trained: dict | None, settings: dict, cached: dict | None, seed: int, status: str = ""):
    """Return the ablation's table from every configuration's trained teachers.

    Parameters
    ----------
    trained : dict or None
        ``{config: (arrays, rows)}`` as from
        :func:`~dpreplication.replications.darrm.teacher_ablation.configuration_votes` (rows as a
        DataFrame), in the configured order; None (dataset unavailable): one row per configuration
        whose ``data_status`` is ``status``.
    cached : dict or None
        The pipeline's ``{"private": arrays, "nonprivate": arrays}`` of the dataset (the stated
        configuration is checked against the private votes; GNMax needs the non-private ones).

    Returns
    -------
    pandas.DataFrame
        One row per configuration (columns :data:`ABLATION_COLUMNS`).
    """
    ablation = settings["ablation"]
    if trained is None:
        rows = [
            {"config": config["name"], "budget": config["budget"], DATA_STATUS_COLUMN: status}
            for config in ablation["configs"]
        ]
        return pd.DataFrame(rows).reindex(columns=ABLATION_COLUMNS).assign(best=False)
    summaries, mask = [], None
    for config in ablation["configs"]:
        arrays, rows = trained[config["name"]]
        if not np.array_equal(arrays["test_index"], cached["private"]["test_index"]):
            raise ValueError(f"{config['name']}: the ablation's test pool differs from the cached votes'")
        if mask is None:
            mask = validation_mask(arrays["labels"].size, ablation["validation_share"], seed, ablation["dataset"])
        summaries.append(summary_row(config, arrays, rows, mask, cached, settings))
    return mark_best(pd.DataFrame(summaries).reindex(columns=ABLATION_COLUMNS))


def seed_mean_table(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Average accuracy tables of the seed replicates, row by row; each gap's 95 % interval over the seeds.

    The gap of a replicate is its mean over the query draws; the interval is Student-t over the
    ``S`` replicates (NaN for one), which holds both the teachers' and the draws' randomness.
    """
    first = tables[0]
    stacked = pd.concat(tables, keys=range(len(tables)), names=["replicate", "row"])
    numeric = first.select_dtypes("number").columns
    mean = stacked[numeric].groupby(level="row").mean()
    table = first.copy()
    table[numeric] = mean[numeric]
    for better, worse in prediction.GAPS:
        gap = f"{better}_minus_{worse}"
        for row in range(len(first)):
            interval = mean_confidence_interval([t[gap].iloc[row] for t in tables])
            table.loc[table.index[row], [f"{gap}_ci_low", f"{gap}_ci_high"]] = interval["ci_low"], interval["ci_high"]
    table.insert(table.columns.get_loc("draws"), "runs", len(tables))
    return table


def best_configuration_accuracy(
    files: dict | None,
    settings: dict,
    table: pd.DataFrame,
    arrays: dict,
    cached: dict | None,
    statuses: dict,
    seed: int,
):
    """Return the accuracy table of the ablation's dataset with the private teachers of its ``best`` configuration.

    The table of :func:`~dpreplication.replications.darrm.prediction.accuracy_table` on the query
    part of the pool (never the validation part that chose the configuration), with the pipeline's
    non-private teachers, for each seed replicate, averaged by :func:`seed_mean_table` (``runs``:
    the seeds). First columns: the configuration and its teachers' mean accuracy on the query part
    and number collapsed (over all seeds).

    Returns
    -------
    tuple
        ``(table, per-teacher rows of the teachers trained now, the query sets' ledgers with their
        replicate)``.
    """
    dataset = settings["ablation"]["dataset"]
    one_dataset = {**settings, "datasets": {dataset: settings["datasets"][dataset]}}
    name, mean_accuracy, collapsed, rows, replicates = "", np.nan, np.nan, [], [{}]
    if files is not None:
        name = table.loc[table.best.astype(bool), "config"].item()
        private, rows = best_configuration_votes(files, settings, name, arrays, seed)
        mask = validation_mask(private["labels"].size, settings["ablation"]["validation_share"], seed, dataset)
        query, nonprivate = restrict(private, ~mask), restrict(cached["nonprivate"], ~mask)
        mean_accuracy = float(np.mean(query["votes"] == query["labels"]))
        collapsed = int(
            sum(
                quality.vote_diagnostics(teacher, private["labels"], settings["classes"])["collapsed"]
                for seed_votes in private["votes"]
                for teacher in seed_votes
            )
        )
        replicates = [
            {dataset: {"private": {**query, "votes": seed_votes}, "nonprivate": nonprivate}}
            for seed_votes in query["votes"]
        ]
    tables, releases = zip(
        *(prediction.accuracy_table(votes, statuses, one_dataset, seed, settings["solver"]) for votes in replicates)
    )
    accuracy = seed_mean_table(list(tables))
    accuracy.insert(1, "config", name)
    accuracy.insert(2, "teachers_accuracy_mean", mean_accuracy)
    accuracy.insert(3, "collapsed_teachers", collapsed)
    spent = pd.concat([part.assign(replicate=replicate) for replicate, part in enumerate(releases)], ignore_index=True)
    return accuracy, rows, spent
