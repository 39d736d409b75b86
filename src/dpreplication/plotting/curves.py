"""Figures of curves against a parameter: error against ε or against the number of candidates."""

from __future__ import annotations

import pandas as pd

from dpreplication.plotting.core import new_figure


def utility_grid(data: pd.DataFrame):
    """Rows = tasks, columns = datasets: exact expected error against ε (log y), MC overlay.

    ``data``: columns dataset, task, epsilon, series, kind (exact | sampled), error, ci_low, ci_high.
    """
    tasks = list(dict.fromkeys(data.task))
    datasets = list(dict.fromkeys(data.dataset))
    figure, axes = new_figure(len(tasks), len(datasets), width=2.6 * len(datasets), height=2.4 * len(tasks) + 0.4)
    for i, task in enumerate(tasks):
        for j, dataset in enumerate(datasets):
            ax = axes[i][j]
            panel = data[(data.task == task) & (data.dataset == dataset)]
            for series, rows in panel[panel.kind == "exact"].groupby("series", sort=False):
                ax.plot(rows.epsilon, rows.error, label=series)
            for series, rows in panel[panel.kind == "sampled"].groupby("series", sort=False):
                ax.errorbar(rows.epsilon, rows.error, yerr=[rows.error - rows.ci_low, rows.ci_high - rows.error],
                            fmt="o", ms=3, capsize=2, color="k", label=series)
            ax.set_yscale("log")
            ax.set_ylim(bottom=1)
            ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 2))
            ax.set_title(f"{dataset} — {task}")
            if i == len(tasks) - 1:
                ax.set_xlabel("ε")
            if j == 0:
                ax.set_ylabel("expected error")
    axes[0][0].legend(loc="upper right")
    return figure


def worst_case(data: pd.DataFrame):
    """Worst-case expected error (over the gap) against the number of candidates n, and the ratio.

    ``data``: columns n, mechanism, worst_error, ratio_em_over_pf.
    """
    figure, axes = new_figure(1, 2, width=8.0, height=3.4)
    left, right = axes[0]
    for mechanism, rows in data.groupby("mechanism", sort=False):
        left.plot(rows.n, rows.worst_error, marker="o", ms=3, label=mechanism)
    left.set_xscale("log")
    left.set_xlabel("number of candidates n")
    left.set_ylabel("worst-case expected error (ε = Δ = 1)")
    left.legend()
    ratio = data.drop_duplicates("n")
    right.plot(ratio.n, ratio.ratio_em_over_pf, marker="o", ms=3, color="k")
    right.axhline(1, color="0.5", lw=0.8)
    right.set_xscale("log")
    right.set_xlabel("number of candidates n")
    right.set_ylabel("EM / P&F worst-case error")
    return figure
