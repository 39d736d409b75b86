"""PrivGene Figs 3–5 tables: the comparison job tables aggregated into the figures and their pairwise gaps.

The job tables of :mod:`dpreplication.replications.privgene.comparison` are aggregated into the
figures (mean ± 95 % CI per method and ε), every pair of methods' paired differences and ratios,
and their extremes over the ε grid, the quantities the paper's prose states (spec ``privgene.md``
§5, §9 "Uncertainty").

Kept apart from the job module so that editing an aggregation reruns no finished job.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.data import tabular
from dpreplication.learning.protocol import mean_confidence_interval, summarise
from dpreplication.replications.privgene.datasets import DATASETS
from dpreplication.replications.privgene.methods import EPSILON_FREE, METHOD_ORDER
from dpreplication.statistics.intervals import abs_bounds, log_ratio_interval, with_interval

FIGURES = {
    "fig3": ("lr", "error", "misclassification rate"),
    "fig4": ("svm", "error", "misclassification rate"),
    "fig5": ("kmeans", "variance", "average intra-cluster variance"),
}
"""The paper's figure -> (task, or task prefix for k-means; the value; its axis label)."""
REFERENCE_METHODS = ("Majority", "NoPrivacy")
"""Drawn dashed: the naive private baseline and the non-private one."""

PANEL = ["dataset", "task"]


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by panel (order of appearance), method (:data:`METHOD_ORDER`) and ε."""
    keys = {
        "dataset": list(dict.fromkeys(frame.dataset)),
        "task": list(dict.fromkeys(frame.task)),
        "method": [m for m in METHOD_ORDER if m in set(frame.method)],
    }
    rank = {column: frame[column].map({v: i for i, v in enumerate(values)}) for column, values in keys.items()}
    order = pd.DataFrame(rank).assign(epsilon=frame.epsilon).sort_values(["dataset", "task", "method", "epsilon"]).index
    return frame.loc[order].reset_index(drop=True)


def with_references(jobs: pd.DataFrame, references: list[pd.DataFrame], settings: dict) -> pd.DataFrame:
    """Return the Figs 3–4 job tables with NoPrivacy's rows of the reference jobs (the same folds).

    Only the rows of the figures' ``settings["datasets"]`` and of the tasks whose series
    (``settings["methods"]``) list NoPrivacy: the reference jobs run Majority and every reference
    dataset too.
    """
    tasks = [task for task, methods in settings["methods"].items() if "NoPrivacy" in methods]
    chosen = [
        frame[frame.method.eq("NoPrivacy") & frame.task.isin(tasks) & frame.dataset.isin(settings["datasets"])]
        for frame in references
    ]
    return pd.concat([jobs, *chosen], ignore_index=True)


def comparison_runs(jobs: pd.DataFrame) -> pd.DataFrame:
    """Expand the concatenated job tables into the runs of Figs 3–5.

    The ε-free methods (NoPrivacy) are repeated at every ε of their panel's grid, so that every
    method has one row per (ε, repetition, fold).
    """
    unknown = sorted(set(jobs.method) - set(METHOD_ORDER))
    if unknown:
        raise ValueError(f"unknown methods {unknown}; known: {METHOD_ORDER}")
    free = jobs.method.isin(EPSILON_FREE)
    grid = jobs.loc[~free, [*PANEL, "epsilon"]].drop_duplicates()
    flat = jobs[free].drop(columns="epsilon").merge(grid, on=PANEL)
    return _ordered(pd.concat([jobs[~free], flat], ignore_index=True))


def comparison_figure(runs: pd.DataFrame, value: str = "error") -> pd.DataFrame:
    """Figs 3–5: mean ± 95 % CI of ``value`` per (dataset, task, method, ε) over the runs that released a model.

    ``failures`` counts the runs whose solver did not converge (NaN value), ``r`` is PrivGene's
    mean number of iterations.
    """
    keys = [*PANEL, "method", "epsilon"]
    table = summarise(runs.dropna(subset=[value]), keys, value).rename(columns={"mean": value})
    extra = runs.groupby(keys, sort=False).agg(failures=(value, lambda v: int(v.isna().sum())), r=("r", "mean"))
    return _ordered(runs[keys].drop_duplicates().merge(table, on=keys, how="left").merge(extra.reset_index(), on=keys))


def paired_differences(runs: pd.DataFrame, value: str = "error") -> pd.DataFrame:
    """Every pair of methods of a panel at every ε, paired by (repetition, fold) (spec §9).

    ``method`` comes before ``baseline`` in :data:`METHOD_ORDER`; ``difference`` is the mean of
    ``method − baseline`` over the runs where both released a model, with its 95 % CI;
    ``ratio`` is ``baseline`` mean / ``method`` mean (Fig. 5: how many times GUPT's variance
    exceeds PrivGene's) and ``log10_ratio`` its logarithm, each with the 95 % interval of
    :func:`log_ratio_interval`.
    """
    wide = runs.set_index([*PANEL, "epsilon", "repetition", "fold", "method"])[value].unstack("method")
    rows = []
    for (dataset, task, epsilon), block in wide.groupby(level=[0, 1, 2], sort=False):
        present = [m for m in METHOD_ORDER if m in block and block[m].notna().any()]
        for i, method in enumerate(present):
            for baseline in present[i + 1 :]:
                both = block[[method, baseline]].dropna()
                stats = mean_confidence_interval((both[method] - both[baseline]).to_numpy())
                means = block[method].mean(), block[baseline].mean()
                log10_ratio = float(np.log10(means[1] / means[0]))
                log_se, log_half = log_ratio_interval(both[method].to_numpy(), both[baseline].to_numpy())
                rows.append(
                    {
                        "dataset": dataset,
                        "task": task,
                        "method": method,
                        "baseline": baseline,
                        "epsilon": epsilon,
                        "method_value": means[0],
                        "baseline_value": means[1],
                        "difference": stats["mean"],
                        "difference_ci_low": stats["ci_low"],
                        "difference_ci_high": stats["ci_high"],
                        "runs": stats["runs"],
                        "ratio": means[1] / means[0],
                        "ratio_ci_low": 10 ** (log10_ratio - log_half),
                        "ratio_ci_high": 10 ** (log10_ratio + log_half),
                        "log10_ratio": log10_ratio,
                        "log10_ratio_se": log_se,
                        "log10_ratio_ci_low": log10_ratio - log_half,
                        "log10_ratio_ci_high": log10_ratio + log_half,
                    }
                )
    return pd.DataFrame(rows)


def _bounds(block: pd.DataFrame, column: str) -> tuple[pd.Series, pd.Series]:
    return block[f"{column}_ci_low"], block[f"{column}_ci_high"]


def pair_summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per pair of methods and panel: the mean differences and ratios summarised over the ε grid.

    The largest, smallest, average and largest absolute mean difference (``max_difference < 0``:
    ``method`` beats ``baseline`` at every ε), the largest above the smallest ε, the differences
    and ratios at the smallest and largest ε, and ``ratio_growth`` (ratio at the smallest ε / ratio
    at the largest: > 1 when the gap widens as ε falls).

    Each summary carries the interval that interval arithmetic gives from the per-ε 95 %
    intervals, by the same operation: the maximum of the differences lies in
    ``[max of the lower bounds, max of the upper bounds]``, their mean in ``[mean of the lower,
    mean of the upper]``, a quotient of ratios in ``[low / high, high / low]``. The interval covers
    the summary whenever every per-ε interval covers its difference (each does at 95 %; jointly
    the coverage is lower, and the page reports the multiplicity adjustment).
    """
    rows = []
    for (dataset, task, method, baseline), block in pairs.groupby([*PANEL, "method", "baseline"], sort=False):
        block = block.sort_values("epsilon")
        first, last = block.iloc[0], block.iloc[-1]
        low, high = _bounds(block, "difference")
        abs_low, abs_high = abs_bounds(low, high)
        row = {
            "dataset": dataset,
            "task": task,
            "method": method,
            "baseline": baseline,
            "smallest_epsilon": first.epsilon,
            "largest_epsilon": last.epsilon,
            "runs": int(block.runs.min()),
        }
        with_interval(row, "max_difference", block.difference.max(), low.max(), high.max())
        with_interval(row, "min_difference", block.difference.min(), low.min(), high.min())
        with_interval(row, "mean_difference", block.difference.mean(), low.mean(), high.mean())
        with_interval(row, "max_abs_difference", block.difference.abs().max(), abs_low.max(), abs_high.max())
        with_interval(
            row,
            "max_difference_above_smallest_epsilon",
            block.difference.iloc[1:].max(),
            low.iloc[1:].max(),
            high.iloc[1:].max(),
        )
        for end, at in (("smallest", first), ("largest", last)):
            with_interval(
                row, f"difference_at_{end}_epsilon", at.difference, at.difference_ci_low, at.difference_ci_high
            )
            with_interval(row, f"ratio_at_{end}_epsilon", at.ratio, at.ratio_ci_low, at.ratio_ci_high)
        with_interval(row, "min_ratio", block.ratio.min(), block.ratio_ci_low.min(), block.ratio_ci_high.min())
        with_interval(
            row,
            "ratio_growth",
            first.ratio / last.ratio,
            first.ratio_ci_low / last.ratio_ci_high,
            first.ratio_ci_high / last.ratio_ci_low,
        )
        rows.append(row)
    return pd.DataFrame(rows)


def method_levels(figure: pd.DataFrame, value: str = "error") -> pd.DataFrame:
    """Per method and panel: the levels of the value over the ε grid.

    The value at the smallest and largest ε, its minimum, maximum and range (Majority: flat in ε),
    the failures and PrivGene's r; each value with its interval from the per-ε 95 % intervals
    (as in :func:`pair_summary`; the range ``max − min`` lies in ``[max low − min high, max high − min low]``,
    floored at 0).
    """
    rows = []
    for (dataset, task, method), block in figure.groupby([*PANEL, "method"], sort=False):
        block = block.sort_values("epsilon")
        values, low, high = block[value], block.ci_low, block.ci_high
        row = {"dataset": dataset, "task": task, "method": method, "runs": int(block.runs.min())}
        with_interval(row, "value_at_smallest_epsilon", values.iloc[0], low.iloc[0], high.iloc[0])
        with_interval(row, "value_at_largest_epsilon", values.iloc[-1], low.iloc[-1], high.iloc[-1])
        with_interval(row, "min_value", values.min(), low.min(), high.min())
        with_interval(row, "max_value", values.max(), low.max(), high.max())
        with_interval(
            row,
            "range_over_epsilon",
            values.max() - values.min(),
            max(low.max() - high.min(), 0.0),
            high.max() - low.min(),
        )
        row.update(failures=int(block.failures.sum()), r_at_largest_epsilon=block.r.iloc[-1])
        rows.append(row)
    return pd.DataFrame(rows)


def panel_titles(figure: pd.DataFrame, data: dict[str, tabular.TabularData]) -> list[list[str]]:
    """``[dataset, task, "(a) Adult"]`` per panel, naming a substitute and, for k-means, k (spec §5 letters)."""
    titles = []
    for letter, (dataset, task) in zip("abcdefgh", figure[PANEL].drop_duplicates().itertuples(index=False)):
        spec, item = DATASETS[dataset], data[dataset]
        label = f"\n({spec.short_label})" if item.substitute and spec.short_label else ""
        k = f", k = {task.removeprefix('kmeans_k')}" if task.startswith("kmeans_k") else ""
        titles.append([dataset, task, f"({letter}) {dataset}{k}{label}"])
    return titles


def figure_table(figure: str, jobs: pd.DataFrame) -> pd.DataFrame:
    """Return the table of one comparison figure from its job tables.

    The table is :func:`comparison_figure` of :func:`comparison_runs`.

    Parameters
    ----------
    figure : str
        A key of :data:`FIGURES`: ``fig3`` LR, ``fig4`` SVM, ``fig5`` k-means.
    jobs : pandas.DataFrame
        The Figs 3–4 job tables with NoPrivacy's rows (:func:`with_references`; rows of other
        tasks are ignored), or Fig. 5's k-means job tables.
    """
    task, value, _ = FIGURES[figure]
    return comparison_figure(comparison_runs(_jobs_of(task, jobs)), value)


def pair_tables(jobs: pd.DataFrame, kmeans_jobs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Return the tables across the three figures, by name.

    ``pairs`` (:func:`paired_differences`), ``summary`` (:func:`pair_summary`) and ``levels``
    (:func:`method_levels`).

    Parameters
    ----------
    jobs : pandas.DataFrame
        The Figs 3–4 job tables with NoPrivacy's rows (:func:`with_references`).
    kmeans_jobs : pandas.DataFrame
        Fig. 5's job tables.
    """
    pairs, levels = [], []
    for task, value, _ in FIGURES.values():
        runs = comparison_runs(_jobs_of(task, kmeans_jobs if task == "kmeans" else jobs))
        pairs.append(paired_differences(runs, value))
        levels.append(method_levels(comparison_figure(runs, value), value))
    pairs = pd.concat(pairs, ignore_index=True)
    return {"pairs": pairs, "summary": pair_summary(pairs), "levels": pd.concat(levels, ignore_index=True)}


def _jobs_of(task: str, jobs: pd.DataFrame) -> pd.DataFrame:
    """Select the rows of ``task`` (every k-means job for ``"kmeans"``, whose tasks are ``kmeans_k<k>``)."""
    return jobs if task == "kmeans" else jobs[jobs.task == task]
