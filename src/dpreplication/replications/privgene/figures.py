"""PrivGene figure tables: Fig. 2, Figs 6–7, the Δ traces and the reference levels (spec ``privgene.md`` §5, §9).

The job tables of :mod:`dpreplication.replications.privgene.jobs` aggregated into these figures and
tables (mean ± 95 % CI). The spec's exact numbers and the exact EEM privacy audits are
:mod:`dpreplication.replications.privgene.verified`.

Kept apart from the job module so that editing an aggregation reruns no finished job.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.data import tabular
from dpreplication.learning.protocol import mean_confidence_interval, summarise
from dpreplication.replications.privgene import jobs
from dpreplication.replications.privgene.datasets import DATASETS
from dpreplication.replications.privgene.methods import training_size
from dpreplication.statistics.intervals import with_interval

# =========================================================================== figure tables


def figure_title(figure: str, data: tabular.TabularData, epsilon: float) -> str:
    """``"<figure>: <dataset> (<substitute>), ε = <ε>"``: a substitute is named in the figure itself."""
    spec = DATASETS[data.name]
    label = f" ({spec.short_label})" if data.substitute and spec.short_label else ""
    return f"{figure}: {data.name}{label}, ε = {epsilon:g}"


def choice_of_c(jobs: pd.DataFrame, reference_c: float) -> pd.DataFrame:
    """Fig. 2: error against c and its ratio to the error at ``reference_c`` (paired by repetition and fold).

    ``ratio`` is the mean over runs of ``error(c)/error(reference_c)`` on the same fold; its CI is
    the Student-t interval of those paired ratios.
    """
    rows = []
    for (dataset, task), panel in jobs.groupby(["dataset", "task"], sort=False):
        base = panel[np.isclose(panel.c, reference_c)].set_index(["repetition", "fold"]).error
        for c, runs in panel.groupby("c"):
            errors = runs.set_index(["repetition", "fold"]).error
            ratio = mean_confidence_interval((errors / base.reindex(errors.index)).to_numpy())
            error = mean_confidence_interval(errors.to_numpy())
            rows.append(
                {
                    "dataset": dataset,
                    "task": task,
                    "c": c,
                    "c_x1e3": round(c * 1e3, 6),
                    "epsilon": runs.epsilon.iloc[0],
                    "r": float(runs.r.mean()),
                    "runs": error["runs"],
                    "error": error["mean"],
                    "error_ci_low": error["ci_low"],
                    "error_ci_high": error["ci_high"],
                    "ratio": ratio["mean"],
                    "ratio_ci_low": ratio["ci_low"],
                    "ratio_ci_high": ratio["ci_high"],
                }
            )
    return pd.DataFrame(rows)


def choice_of_c_summary(table: pd.DataFrame, paper_c: float) -> pd.DataFrame:
    """Summarise the U-shape of Fig. 2 per panel and pooled over the panels (mean of their ratios).

    ``argmin_c_x1e3``: the c with the smallest ratio; ``left_rise`` / ``right_rise``: the ratio at
    the smallest / largest c minus the smallest ratio (both > 0 when the minimum is interior,
    the U of the paper); ``ratio_at_paper_c``: the ratio at the paper's c (the paper: < 1).

    Each with its interval by interval arithmetic on the per-c 95 % intervals (the pooled ratio's:
    the mean of the panels'); the argmin's is the range of the c that may be the minimiser, those
    whose lower bound is below every upper bound.
    """
    pooled = (
        table.groupby("c", as_index=False)[["ratio", "ratio_ci_low", "ratio_ci_high", "runs"]]
        .agg({"ratio": "mean", "ratio_ci_low": "mean", "ratio_ci_high": "mean", "runs": "min"})
        .assign(dataset="pooled", task="lr+svm")
    )
    rows = []
    for (dataset, task), panel in pd.concat([table, pooled], ignore_index=True).groupby(
        ["dataset", "task"], sort=False
    ):
        panel = panel.sort_values("c")
        ratio, low, high = panel.ratio.to_numpy(), panel.ratio_ci_low.to_numpy(), panel.ratio_ci_high.to_numpy()
        at_paper = int(np.flatnonzero(np.isclose(panel.c, paper_c))[0])
        plausible_minimisers = panel.c.to_numpy()[low <= high.min()] * 1e3
        row = {"dataset": dataset, "task": task, "runs": int(panel.runs.min())}
        with_interval(row, "ratio_at_paper_c", ratio[at_paper], low[at_paper], high[at_paper])
        with_interval(
            row,
            "argmin_c_x1e3",
            panel.c.iloc[int(np.argmin(ratio))] * 1e3,
            plausible_minimisers.min(),
            plausible_minimisers.max(),
        )
        with_interval(row, "min_ratio", ratio.min(), low.min(), high.min())
        with_interval(row, "left_rise", ratio[0] - ratio.min(), low[0] - high.min(), high[0] - low.min())
        with_interval(row, "right_rise", ratio[-1] - ratio.min(), low[-1] - high.min(), high[-1] - low.min())
        rows.append(row)
    return pd.DataFrame(rows)


def paper_r_job(
    data: tabular.TabularData,
    task: str,
    variant: str,
    repetition: int,
    *,
    seed: int,
    epsilon: float,
    algorithm: dict,
    paper_r: int,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """Figs 6–7 ablation: the Figs 6–7 job at the paper's number of iterations (US 40, BR 38).

    Our US and BR copies are smaller than the paper's (18,405 and 18,699 training rows
    instead of 32,000 and 30,400), so the formula gives r = 23; here c is rescaled so that
    ``round(c·n_train·ε) = paper_r`` on every fold. Same seeds as the main job (paired); the
    method is labelled ``"<variant>, r=<paper_r>"``.
    """
    c = paper_r / (training_size(len(data.features), folds) * epsilon)
    job = jobs.eem_vs_em(task, variant, epsilon=epsilon, algorithm={**algorithm, "c": c}, folds=folds,
                         use_folds=use_folds)  # fmt: skip
    frame = jobs.run_job(data, job, repetition, seed=seed)
    if not (frame.r == paper_r).all():
        raise ValueError(f"{data.name}: rescaled c gives r = {sorted(set(frame.r))}, not {paper_r}")
    return frame.assign(method=f"{variant}, r={paper_r}")


def eem_vs_em(jobs: pd.DataFrame, references: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figs 6–7: mean test error (± 95 % CI) of the vector selected at each iteration, per variant.

    With the mean Δ1, Δ2 and Δ used; NoPrivacy and Majority as flat series when given.
    """
    keys = ["dataset", "task", "method", "iteration"]
    table = summarise(jobs, keys, "error")
    deltas = (
        jobs.groupby(keys, sort=False)[["delta1", "delta2", "delta_used", "mutation_scale", "r"]].mean().reset_index()
    )
    table = table.merge(deltas, on=keys)
    if references is not None and not references.empty:
        levels = summarise(references, ["dataset", "task", "method"], "error")
        grid = table[["dataset", "task", "iteration"]].drop_duplicates()
        flat = grid.merge(levels, on=["dataset", "task"])
        table = pd.concat([table, flat], ignore_index=True)
    return table.rename(columns={"mean": "error"})


def _curve_intervals(panel: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per method of a Figs 6–7 panel: its error, ci_low and ci_high by iteration."""
    return {
        method: rows.set_index("iteration")[["error", "ci_low", "ci_high"]].dropna(subset=["error"])
        for method, rows in panel.groupby("method")
    }


def _run_gaps(runs: pd.DataFrame, dataset: str, task: str, em: str, eem: str) -> pd.Series:
    """EM − EEM per run and iteration, paired by (repetition, fold): the variants share the folds."""
    panel = runs[(runs.dataset == dataset) & (runs.task == task) & runs.method.isin([em, eem])]
    wide = panel.pivot_table(index=["repetition", "fold", "iteration"], columns="method", values="error")
    return (wide[em] - wide[eem]).dropna()


def _gap(gaps: pd.Series) -> pd.DataFrame:
    """Return the mean paired gap by iteration with its Student-t 95 % interval over the runs."""
    stats = {
        iteration: mean_confidence_interval(block.to_numpy()) for iteration, block in gaps.groupby(level="iteration")
    }
    return pd.DataFrame(
        {"value": [s["mean"] for s in stats.values()], "low": [s["ci_low"] for s in stats.values()],
         "high": [s["ci_high"] for s in stats.values()]},
        index=pd.Index(list(stats), name="iteration"),
    )  # fmt: skip


def _growth(gaps: pd.Series, first: int, last: int) -> dict:
    """Return the paired growth of the gap from iteration ``first`` to ``last``: its mean and interval over the runs."""
    by_run = gaps.unstack("iteration")
    return mean_confidence_interval((by_run[last] - by_run[first]).dropna().to_numpy())


def eem_vs_em_summary(table: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task): final errors of EEM and EM, the final gap EM − EEM and its growth from iteration 1.

    ``table`` is :func:`eem_vs_em`'s, ``runs`` the job rows it summarises. The gaps are paired by
    run (the variants share the folds): the final and first gaps and the growth ``last − first``
    with their Student-t 95 % intervals over the runs; the largest gap over iterations with the
    interval that interval arithmetic gives from the per-iteration ones, ``[max of the lows, max
    of the highs]``.
    """
    rows = []
    for (dataset, task), panel in table.groupby(["dataset", "task"], sort=False):
        curves = _curve_intervals(panel)
        gaps = _run_gaps(runs, dataset, task, "EM", "EEM")
        gap = _gap(gaps)
        last = int(gap.index.max())
        row = {
            "dataset": dataset,
            "task": task,
            "runs": int(panel[panel.method == "EEM"].runs.min()),
            "iterations": last,
            "eem_final_error": float(curves["EEM"].error.loc[last]),
            "em_final_error": float(curves["EM"].error.loc[last]),
            "eem_rnm_exp_final_error": float(curves["EEM-RNMExp"].error.loc[last])
            if "EEM-RNMExp" in curves
            else np.nan,
        }
        with_interval(row, "final_gap", gap.value.loc[last], gap.low.loc[last], gap.high.loc[last])
        with_interval(row, "first_gap", gap.value.loc[1], gap.low.loc[1], gap.high.loc[1])
        with_interval(row, "max_gap", gap.value.max(), gap.low.max(), gap.high.max())
        growth = _growth(gaps, 1, last)
        with_interval(row, "gap_growth", growth["mean"], growth["ci_low"], growth["ci_high"])
        row["noprivacy_error"] = float(curves["NoPrivacy"].error.iloc[0]) if "NoPrivacy" in curves else np.nan
        row["majority_error"] = float(curves["Majority"].error.iloc[0]) if "Majority" in curves else np.nan
        at_paper_r = sorted(m for m in curves if m.startswith("EEM, r="))
        if at_paper_r:
            eem_paper, em_paper = at_paper_r[0], at_paper_r[0].replace("EEM", "EM", 1)
            paper_gap = _gap(_run_gaps(runs, dataset, task, em_paper, eem_paper))
            row.update(
                paper_r=int(curves[eem_paper].index.max()),
                eem_final_error_paper_r=float(curves[eem_paper].error.iloc[-1]),
                em_final_error_paper_r=float(curves[em_paper].error.iloc[-1]),
            )
            end = paper_gap.iloc[-1]
            with_interval(row, "final_gap_paper_r", end.value, end.low, end.high)
            with_interval(row, "max_gap_paper_r", paper_gap.value.max(), paper_gap.low.max(), paper_gap.high.max())
        rows.append(row)
    return pd.DataFrame(rows)


def dampening_trace(jobs: pd.DataFrame, algorithm: dict) -> pd.DataFrame:
    """Δ1, Δ2 and the Δ used per iteration (mean over runs), the extra of spec §9, with exactness checks.

    ``delta2_over_4bs``: Δ2 at iteration i ≥ 2 divided by ``4·b·s_{i-1}`` (b = 1 for LR, C for the
    SVM; spec §2.3 "after iter. 1, m' = 1"), averaged over runs.
    """
    jobs = jobs.copy()
    bound = np.where(jobs.task == "svm", algorithm["svm_C"], 1.0)
    previous_scale = jobs.groupby(["dataset", "task", "method", "repetition", "fold"]).mutation_scale.shift(1)
    jobs["delta2_over_4bs"] = jobs.delta2 / (4.0 * bound * previous_scale)
    jobs["delta2_over_delta1"] = jobs.delta2 / jobs.delta1
    keys = ["dataset", "task", "method", "iteration"]
    columns = ["delta1", "delta2", "delta_used", "delta2_over_delta1", "delta2_over_4bs"]
    return jobs.groupby(keys, sort=False)[columns].agg(["mean", "max", "min"]).pipe(_flatten).reset_index()


def _flatten(frame: pd.DataFrame) -> pd.DataFrame:
    frame.columns = [f"{a}_{b}" for a, b in frame.columns]
    return frame


def dampening_summary(trace: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task, method): Δ2/Δ1 after and at iteration 1, and the Δ2 = 4bs exactness.

    The largest Δ2/Δ1 after iteration 1 (spec §9: ≤ 1), the Δ2 = 4bs exactness (max deviation over
    runs and iterations) and the smallest Δ2/Δ1 at iteration 1 over runs (> 1: the first selection,
    among random vectors, is Δ1-bound in every run).
    """
    rows = []
    for (dataset, task, method), panel in trace.groupby(["dataset", "task", "method"], sort=False):
        later = panel[panel.iteration >= 2]
        first = panel[panel.iteration == 1].iloc[0]
        rows.append(
            {
                "dataset": dataset,
                "task": task,
                "method": method,
                "max_delta2_over_delta1_after_first": float(later.delta2_over_delta1_max.max()),
                "max_abs_delta2_over_4bs_minus_1": float(
                    np.maximum(np.abs(later.delta2_over_4bs_max - 1), np.abs(later.delta2_over_4bs_min - 1)).max()
                ),
                "first_delta1": float(first.delta1_mean),
                "first_delta2": float(first.delta2_mean),
                "first_min_delta2_over_delta1": float(first.delta2_over_delta1_min),
                "last_delta2": float(panel.delta2_mean.iloc[-1]),
                "last_delta1": float(panel.delta1_mean.iloc[-1]),
            }
        )
    return pd.DataFrame(rows)


def reference_levels(jobs: pd.DataFrame, data: dict[str, tabular.TabularData] | None = None) -> pd.DataFrame:
    """NoPrivacy and Majority misclassification (mean ± 95 % CI) per dataset and task, with the minority rate."""
    table = summarise(jobs, ["dataset", "task", "method"], "error").rename(
        columns={"mean": "error", "ci_low": "error_ci_low", "ci_high": "error_ci_high", "sem": "error_se"}
    )
    if data:
        minority = {name: float(min(d.labels.mean(), 1 - d.labels.mean())) for name, d in data.items()}
        table["minority_rate"] = table.dataset.map(minority)
    return table
