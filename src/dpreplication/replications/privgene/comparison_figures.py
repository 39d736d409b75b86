"""PrivGene Figs 3–5 tables: the comparison job tables aggregated into the figures and their pairwise gaps.

The job tables of :mod:`dpreplication.replications.privgene.comparison` are aggregated into the
figures (mean ± 95 % CI per method and ε), every pair of methods' paired differences and ratios,
and their extremes over the ε grid, the quantities the paper's prose states (spec ``privgene.md``
§5, §9 "Uncertainty"). The claim tables (pairs, summary, levels) carry their intervals at the
verdict's level, one-sided ``0.025 / looks`` (:func:`dpreplication.statistics.intervals.one_sided_level`:
two looks where a second stage may add runs), and a summary over the ε grid is Bonferroni over
its cells where any cell could decide it (:func:`pair_summary`).

Kept apart from the job module so that editing an aggregation reruns no finished job.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.data import tabular
from dpreplication.learning.protocol import summarise
from dpreplication.replications.privgene.datasets import DATASETS
from dpreplication.replications.privgene.methods import EPSILON_FREE, METHOD_ORDER
from dpreplication.statistics.intervals import (
    ONE_SIDED_LEVEL,
    abs_bounds,
    confidence,
    one_sided_level,
    t_bounds,
    with_interval,
)

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


def comparison_figure(runs: pd.DataFrame, value: str = "error", looks: int = 1) -> pd.DataFrame:
    """Figs 3–5: mean ± CI of ``value`` per (dataset, task, method, ε) over the runs that released a model.

    The CI is 95 % (``looks`` 1, the figures') or at the verdict's level for ``looks`` > 1.
    ``failures`` counts the runs whose solver did not converge (NaN value), ``r`` is PrivGene's
    mean number of iterations.
    """
    keys = [*PANEL, "method", "epsilon"]
    table = summarise(runs.dropna(subset=[value]), keys, value, confidence(looks)).rename(columns={"mean": value})
    extra = runs.groupby(keys, sort=False).agg(failures=(value, lambda v: int(v.isna().sum())), r=("r", "mean"))
    return _ordered(runs[keys].drop_duplicates().merge(table, on=keys, how="left").merge(extra.reset_index(), on=keys))


def paired_differences(runs: pd.DataFrame, value: str = "error", looks: int = 1) -> pd.DataFrame:
    """Every pair of methods of a panel at every ε, paired by (repetition, fold) (spec §9).

    ``method`` comes before ``baseline`` in :data:`METHOD_ORDER`; ``difference`` is the mean of
    ``method − baseline`` over the runs where both released a model, with its standard error and
    Student-t CI at one-sided level ``0.025 / looks``; ``ratio`` is ``baseline`` mean / ``method``
    mean (Fig. 5: how many times GUPT's variance exceeds PrivGene's) and ``log10_ratio`` its
    logarithm, each with the delta-method interval of :func:`log_ratio_interval` at the same level,
    computed for every (panel, ε) at once.
    """
    alpha = one_sided_level(looks)
    wide = runs.set_index([*PANEL, "epsilon", "repetition", "fold", "method"])[value].unstack("method")
    cells = [0, 1, 2]
    means = wide.groupby(level=cells, sort=False).mean()
    position = pd.Series(np.arange(len(means)), index=means.index)
    methods = [m for m in METHOD_ORDER if m in wide]
    frames = []
    for i, method in enumerate(methods):
        for j, baseline in enumerate(methods[i + 1 :]):
            both = wide[[method, baseline]].dropna()
            by_cell = both.groupby(level=cells, sort=False)
            runs_ = by_cell[method].count()
            difference = (both[method] - both[baseline]).groupby(level=cells, sort=False)
            centred = both / by_cell.transform("mean")
            influence = (centred[baseline] - centred[method]).groupby(level=cells, sort=False)
            se = difference.std() / np.sqrt(runs_)
            log_se = influence.std() / np.sqrt(runs_) / np.log(10)
            method_value, baseline_value = means.loc[runs_.index, method], means.loc[runs_.index, baseline]
            log10_ratio = np.log10(baseline_value / method_value)
            low, high = t_bounds(difference.mean(), se, runs_, alpha)
            log_low, log_high = t_bounds(log10_ratio, log_se, runs_, alpha)
            frame = runs_.index.to_frame(index=False)
            frame = frame.assign(
                method=method,
                baseline=baseline,
                method_value=method_value.to_numpy(),
                baseline_value=baseline_value.to_numpy(),
                difference=difference.mean().to_numpy(),
                difference_se=se.to_numpy(),
                difference_ci_low=low,
                difference_ci_high=high,
                runs=runs_.to_numpy(),
                looks=looks,
                ratio=(baseline_value / method_value).to_numpy(),
                ratio_ci_low=10**log_low,
                ratio_ci_high=10**log_high,
                log10_ratio=log10_ratio.to_numpy(),
                log10_ratio_se=log_se.to_numpy(),
                log10_ratio_ci_low=log_low,
                log10_ratio_ci_high=log_high,
                order=position[runs_.index].to_numpy() * len(methods) ** 2 + i * len(methods) + j,
            )
            frames.append(frame)
    columns = [*PANEL, "method", "baseline", "epsilon"]
    pairs = pd.concat(frames, ignore_index=True).sort_values("order", kind="stable").drop(columns="order")
    return pairs[[*columns, *[c for c in pairs.columns if c not in columns]]].reset_index(drop=True)


def mean_differences(runs: pd.DataFrame, value: str = "error", looks: int = 1) -> pd.DataFrame:
    """Per pair of methods and panel: the mean difference over the ε grid, from per-run means (spec §9).

    Each run (repetition, fold) where both methods released a model at every ε contributes the mean
    of its ``method − baseline`` over the grid; ``mean_difference`` is their mean with its Student-t
    interval at one-sided level ``0.025 / looks`` and ``mean_difference_runs`` their number. The
    runs are shared across ε, so this is the mean's own interval, narrower than the mean of the
    per-ε intervals by up to √(grid size).
    """
    alpha = one_sided_level(looks)
    wide = runs.set_index([*PANEL, "epsilon", "repetition", "fold", "method"])[value].unstack("method")
    panels = wide.groupby(level=[0, 1], sort=False).size()
    position = pd.Series(np.arange(len(panels)), index=panels.index)
    methods = [m for m in METHOD_ORDER if m in wide]
    frames = []
    for i, method in enumerate(methods):
        for j, baseline in enumerate(methods[i + 1 :]):
            by_run = (wide[method] - wide[baseline]).unstack("epsilon")
            grid = by_run.notna().groupby(level=[0, 1], sort=False).transform("any")  # the pair's ε in its panel
            complete = (by_run.notna() | ~grid).all(axis=1) & grid.any(axis=1)
            per_run = by_run.where(grid)[complete].mean(axis=1).groupby(level=[0, 1], sort=False)
            runs_ = per_run.count()
            low, high = t_bounds(per_run.mean(), per_run.std() / np.sqrt(runs_), runs_, alpha)
            frame = runs_.index.to_frame(index=False).assign(
                method=method,
                baseline=baseline,
                mean_difference=per_run.mean().to_numpy(),
                mean_difference_ci_low=low,
                mean_difference_ci_high=high,
                mean_difference_runs=runs_.to_numpy(),
                order=position[runs_.index].to_numpy() * len(methods) ** 2 + i * len(methods) + j,
            )
            frames.append(frame)
    means = pd.concat(frames, ignore_index=True).sort_values("order", kind="stable").drop(columns="order")
    return means.reset_index(drop=True)


def pair_summary(pairs: pd.DataFrame, means: pd.DataFrame) -> pd.DataFrame:
    """Per pair of methods and panel: the mean differences and ratios summarised over the ε grid.

    The largest, smallest and largest absolute mean difference (``max_difference < 0``: ``method``
    beats ``baseline`` at every ε), the largest above the smallest ε, the mean over the grid (from
    ``means``, :func:`mean_differences`), the differences and ratios at the smallest and largest ε,
    and ``ratio_growth`` (ratio at the smallest ε / ratio at the largest: > 1 when the gap widens
    as ε falls).

    Each summary's interval comes from its cells' intervals by the same operation, each bound at
    the level it needs for one-sided ``α = 0.025 / looks`` over all ``k`` cells: the maximum's
    upper bound is the largest cell upper bound at ``α`` (the cell holding the true maximum must
    be below it), its lower bound the largest cell lower bound at ``α / k`` (any cell could be the
    one that errs: Bonferroni, which for this one decision is Holm's first step); the minimum's
    likewise; ``|difference|`` needs both sides of a cell (``α / 2``, ``α / k``); a quotient of two
    cells ``α / 2`` each. ``<summary>_runs`` is the runs of the cell that sets the summary.
    """
    keys = [*PANEL, "method", "baseline"]
    cells = pairs.assign(group=pairs.groupby(keys, sort=False).ngroup())
    cells = cells.sort_values(["group", "epsilon"], kind="stable").reset_index(drop=True)
    by_group = cells.groupby("group", sort=True)
    k, rank = by_group.epsilon.transform("size").to_numpy(), by_group.cumcount().to_numpy()
    alpha = ONE_SIDED_LEVEL / cells.looks.to_numpy()
    d, se, runs = cells.difference, cells.difference_se, cells.runs

    def bounds(one_sided, mean=d, spread=se):
        return t_bounds(mean, spread, runs, one_sided)

    low, high = bounds(alpha)
    low_k, high_k = bounds(alpha / k)
    low_2, high_2 = bounds(alpha / 2)
    low_above = np.where(rank > 0, bounds(alpha / np.maximum(k - 1, 1))[0], np.nan)
    log_low, log_high = bounds(alpha, cells.log10_ratio, cells.log10_ratio_se)
    log_high_k = bounds(alpha / k, cells.log10_ratio, cells.log10_ratio_se)[1]
    end_low, end_high = bounds(alpha / 2, cells.log10_ratio, cells.log10_ratio_se)
    first, last = by_group.head(1).index.to_numpy(), by_group.tail(1).index.to_numpy()

    def per_group(values, how):
        return pd.Series(values).groupby(cells.group).agg(how).to_numpy()

    def at(values, rows):
        return np.asarray(values)[rows]

    top, bottom = by_group.difference.idxmax().to_numpy(), by_group.difference.idxmin().to_numpy()
    widest = d.abs().groupby(cells.group).idxmax().to_numpy()
    above = cells[rank > 0].groupby("group").difference.idxmax().reindex(range(len(first)))
    top_above = above.fillna(0).astype(int).to_numpy()
    has_above = above.notna().to_numpy()
    least = by_group.ratio.idxmin().to_numpy()
    summary = (
        cells.loc[first, [*keys]]
        .reset_index(drop=True)
        .assign(
            smallest_epsilon=at(cells.epsilon, first),
            largest_epsilon=at(cells.epsilon, last),
            runs=per_group(runs, "min"),
            looks=at(cells.looks, first),
        )
    )
    columns = {
        "max_difference": (at(d, top), per_group(low_k, "max"), per_group(high, "max"), at(runs, top)),
        "min_difference": (at(d, bottom), per_group(low, "min"), per_group(high_k, "min"), at(runs, bottom)),
        "max_abs_difference": (
            at(d.abs(), widest),
            per_group(abs_bounds(low_k, high_k)[0], "max"),
            per_group(abs_bounds(low_2, high_2)[1], "max"),
            at(runs, widest),
        ),
        "max_difference_above_smallest_epsilon": (
            np.where(has_above, at(d, top_above), np.nan),
            np.where(has_above, per_group(low_above, "max"), np.nan),
            np.where(has_above, per_group(np.where(rank > 0, high, np.nan), "max"), np.nan),
            np.where(has_above, at(runs, top_above), np.nan),
        ),
    }
    for end, rows in (("smallest", first), ("largest", last)):
        columns[f"difference_at_{end}_epsilon"] = tuple(
            at(cells[c], rows) for c in ("difference", "difference_ci_low", "difference_ci_high", "runs")
        )
        columns[f"ratio_at_{end}_epsilon"] = tuple(
            at(cells[c], rows) for c in ("ratio", "ratio_ci_low", "ratio_ci_high", "runs")
        )
    columns["min_ratio"] = (
        at(cells.ratio, least),
        10 ** per_group(log_low, "min"),
        10 ** per_group(log_high_k, "min"),
        at(runs, least),
    )
    columns["ratio_growth"] = (
        at(cells.ratio, first) / at(cells.ratio, last),
        10 ** (at(end_low, first) - at(end_high, last)),
        10 ** (at(end_high, first) - at(end_low, last)),
        np.minimum(at(runs, first), at(runs, last)),
    )
    for name, (value, low_, high_, runs_) in columns.items():
        summary[name], summary[f"{name}_ci_low"], summary[f"{name}_ci_high"] = value, low_, high_
        summary[f"{name}_runs"] = runs_
    return summary.merge(means, on=keys, how="left", validate="one_to_one")


def method_levels(figure: pd.DataFrame, value: str = "error", looks: int = 1) -> pd.DataFrame:
    """Per method and panel: the levels of the value over the ε grid.

    The value at the smallest and largest ε, its minimum, maximum and range (Majority: flat in ε),
    the failures and PrivGene's r; each with its interval from the per-ε intervals of ``figure``
    (at one-sided ``α = 0.025 / looks``), each bound at the level it needs over the ``k`` cells
    (as in :func:`pair_summary`): the minimum in ``[min low at α, min high at α/k]``, the maximum
    in ``[max low at α/k, max high at α]``, the range ``max − min`` in ``[max low − min high at
    α/2k, max high − min low at α/2]``, floored at 0.
    """
    alpha = one_sided_level(looks)
    rows = []
    for (dataset, task, method), block in figure.groupby([*PANEL, "method"], sort=False):
        block = block.sort_values("epsilon").reset_index(drop=True)
        values, se, runs, k = block[value], block["sem"], block["runs"], len(block)
        low, high = t_bounds(values, se, runs, alpha)
        low_k, high_k = t_bounds(values, se, runs, alpha / k)
        low_2, high_2 = t_bounds(values, se, runs, alpha / 2)
        low_2k, high_2k = t_bounds(values, se, runs, alpha / (2 * k))
        row = {"dataset": dataset, "task": task, "method": method, "runs": int(runs.min()), "looks": looks}
        with_interval(row, "value_at_smallest_epsilon", values.iloc[0], low[0], high[0], runs.iloc[0])
        with_interval(row, "value_at_largest_epsilon", values.iloc[-1], low[-1], high[-1], runs.iloc[-1])
        bottom, top = int(values.idxmin()), int(values.idxmax())
        with_interval(row, "min_value", values[bottom], low.min(), high_k.min(), runs[bottom])
        with_interval(row, "max_value", values[top], low_k.max(), high.max(), runs[top])
        with_interval(
            row,
            "range_over_epsilon",
            values[top] - values[bottom],
            max(low_2k.max() - high_2k.min(), 0.0),
            high_2.max() - low_2.min(),
            min(runs[top], runs[bottom]),
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


def pair_tables(jobs: pd.DataFrame, kmeans_jobs: pd.DataFrame, looks: int = 1) -> dict[str, pd.DataFrame]:
    """Return the tables across the three figures, by name.

    ``pairs`` (:func:`paired_differences`), ``summary`` (:func:`pair_summary`) and ``levels``
    (:func:`method_levels`), Figs 3–4's rows at ``looks`` (two where a second stage may add
    runs), Fig. 5's at one.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The Figs 3–4 job tables with NoPrivacy's rows (:func:`with_references`).
    kmeans_jobs : pandas.DataFrame
        Fig. 5's job tables.
    looks : int
        How many times the Figs 3–4 verdicts may be read (:func:`dpreplication.pipeline.repetitions.looks`).
    """
    pairs, means, levels = [], [], []
    for task, value, _ in FIGURES.values():
        runs = comparison_runs(_jobs_of(task, kmeans_jobs if task == "kmeans" else jobs))
        task_looks = 1 if task == "kmeans" else looks
        pairs.append(paired_differences(runs, value, task_looks))
        means.append(mean_differences(runs, value, task_looks))
        levels.append(method_levels(comparison_figure(runs, value, task_looks), value, task_looks))
    pairs = pd.concat(pairs, ignore_index=True)
    return {
        "pairs": pairs,
        "summary": pair_summary(pairs, pd.concat(means, ignore_index=True)),
        "levels": pd.concat(levels, ignore_index=True),
    }


def _jobs_of(task: str, jobs: pd.DataFrame) -> pd.DataFrame:
    """Select the rows of ``task`` (every k-means job for ``"kmeans"``, whose tasks are ``kmeans_k<k>``)."""
    return jobs if task == "kmeans" else jobs[jobs.task == task]
