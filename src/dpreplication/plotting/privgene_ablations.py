"""Figures of the PrivGene gap experiments.

Their tables come from :mod:`dpreplication.replications.privgene.ablations` and
:mod:`dpreplication.replications.privgene.gupt_variants`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.plotting.core import new_figure
from dpreplication.plotting.labels import figure_title, number, panel_title
from dpreplication.plotting.styles import cycle_hatches, privgene_style, shades

TASK_TITLES = {"lr": "LR", "svm": "SVM"}


def _grouped_bars(
    ax, panel: pd.DataFrame, groups: list[str], series: dict[str, str], log: bool = False, styles=None
) -> None:
    """Bars of ``panel[column]`` per group (x) and series (colour); ``series``: column → label.

    ``styles`` maps a column to the keyword arguments of its bars (colour, hatch, edge colour).
    """
    width = 0.8 / len(series)
    x = np.arange(len(groups))
    for i, (column, label) in enumerate(series.items()):
        style = (styles or {}).get(column, {})
        ax.bar(x + (i - (len(series) - 1) / 2) * width, panel[column].to_numpy(), width, label=label, **style)
    ax.set_xticks(x, groups)
    if log:
        ax.set_yscale("log")


def reachable_set_bars(table: pd.DataFrame):
    """Per task and dataset: NoPrivacy, the best model of the reachable set at the paper's r and at ours, PrivGene.

    PrivGene runs at the same ε.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`~dpreplication.replications.privgene.ablations.reachable_set_table`;
        read: task (lr, svm), dataset, setting (``paper``, ``ours``), r, error, noprivacy_error,
        privgene_error, epsilon.
    """
    figure, axes = new_figure(1, 2, width=9.0, height=3.4)
    for ax, task in zip(axes[0], ("lr", "svm")):
        rows = table[table.task == task]
        wide = rows.pivot(index="dataset", columns="setting", values="error").reindex(list(dict.fromkeys(rows.dataset)))
        levels = rows.groupby("dataset", sort=False)[["noprivacy_error", "privgene_error"]].first()
        panel = wide.join(levels)
        r = rows.pivot(index="dataset", columns="setting", values="r")
        labels = [f"{d}\nr={r.loc[d, 'ours']:.0f} / {r.loc[d, 'paper']:.0f}" for d in panel.index]
        # the methods in their PrivGene colours; the reachable sets in lighter, hatched shades of PrivGene's
        full, mid, pale = shades(privgene_style("PrivGene")["color"], 3)
        _grouped_bars(
            ax,
            panel,
            labels,
            {
                "noprivacy_error": "NoPrivacy",
                "paper": "reachable, paper's r",
                "ours": "reachable, our r",
                "privgene_error": f"PrivGene, ε = {number(rows.epsilon.iloc[0])}",
            },
            styles={
                "noprivacy_error": {"color": privgene_style("NoPrivacy")["color"]},
                "paper": {"color": pale, "edgecolor": full, "hatch": "//", "lw": 0.6},
                "ours": {"color": mid, "edgecolor": full, "hatch": "..", "lw": 0.6},
                "privgene_error": {"color": full},
            },
        )
        panel_title(ax, task == "svm", f"{TASK_TITLES[task]}: best model the schedule can reach")
        ax.set_ylabel("misclassification")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(labels))  # covers no bar
    figure_title(
        figure, "How far PrivGene's mutation schedule can move the weights: the best model of its reachable set"
    )
    return figure


def schedule_points(table: pd.DataFrame):
    """One panel per (dataset, task): each schedule's mean error with its 95 % CI; NoPrivacy dashed.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`~dpreplication.replications.privgene.ablations.schedule_ablation_summary`;
        read: dataset, task, schedule, epsilon, error, error_ci_low, error_ci_high, noprivacy_error.
    """
    panels = list(dict.fromkeys(zip(table.dataset, table.task)))
    figure, axes = new_figure(1, len(panels), width=2.6 * len(panels), height=3.2)
    for index, (ax, (dataset, task)) in enumerate(zip(axes[0], panels)):
        rows = table[(table.dataset == dataset) & (table.task == task)]
        x = np.arange(len(rows))
        ax.errorbar(
            x,
            rows.error,
            yerr=[rows.error - rows.error_ci_low, rows.error_ci_high - rows.error],
            fmt=privgene_style("PrivGene")["marker"],
            color=privgene_style("PrivGene")["color"],
            ms=4,
            label="PrivGene",
        )
        noprivacy = privgene_style("NoPrivacy")
        ax.axhline(rows.noprivacy_error.iloc[0], color=noprivacy["color"], ls=noprivacy["ls"], lw=1, label="NoPrivacy")
        ax.set_xticks(x, [s.replace("_", " ") for s in rows.schedule], rotation=35, ha="right")
        panel = f"{dataset}, {TASK_TITLES[task]}, ε = {number(rows.epsilon.iloc[0])}"
        if len(panels) > 1:
            panel_title(ax, index, panel)
    axes[0][0].set_ylabel("misclassification")
    axes[0][0].legend(fontsize="small", loc="best")
    single = f", {panel}" if len(panels) == 1 else ""
    figure_title(figure, f"Mutation-schedule ablation: PrivGene's error under each schedule{single}")
    return figure


def pooled_ratio_against_c(curves: pd.DataFrame, marked_c: float, reference_c: float):
    """Fig. 2 per ε: the ratio pooled over the panels against c, one line per ε and the grid mean.

    Parameters
    ----------
    curves : pandas.DataFrame
        The curve table of :func:`~dpreplication.replications.privgene.ablations.choice_of_c_by_epsilon`;
        read: epsilon (a label), c_x1e3, ratio.
    marked_c : float
        The paper's choice of c, marked by a dotted line.
    reference_c : float
        The reference c the ratios are relative to, as the y label names it.
    """
    figure, axes = new_figure(1, 1, width=4.6, height=4.0)
    ax = axes[0][0]
    pooled = curves.groupby(["epsilon", "c_x1e3"], as_index=False, sort=False).ratio.mean()
    for label, rows in sorted(pooled.groupby("epsilon"), key=lambda item: float(item[0])):
        rows = rows.sort_values("c_x1e3")
        ax.plot(rows.c_x1e3, rows.ratio, marker="o", ms=3, label=f"ε = {number(float(label))}")
    grid = pooled.groupby("c_x1e3", as_index=False).ratio.mean()
    ax.plot(grid.c_x1e3, grid.ratio, color="k", lw=2, label="grid mean")
    ax.axvline(marked_c * 1e3, color="k", ls=":", lw=1)
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.set_xlabel("c (×10⁻³)")
    ax.set_ylabel(f"error / error at c = {number(reference_c * 1e3)}×10⁻³ (pooled)")
    figure_title(figure, "Fig. 2 at each ε (Adult, Banking; LR, SVM)")
    handles, labels = ax.get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=3, fontsize="small")  # covers no point
    return figure


def gupt_variant_bars(table: pd.DataFrame):
    """log10(GUPT / PrivGene) per Fig. 5 panel and GUPT variant, with the paper's 2 ± 0.5 shaded.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`~dpreplication.replications.privgene.gupt_variants.gupt_variants_summary`;
        read: dataset, task, variant, epsilon, log10_ratio.
    """
    figure, axes = new_figure(1, 1, width=6.4, height=3.4)
    ax = axes[0][0]
    panels = list(dict.fromkeys(zip(table.dataset, table.task)))
    wide = table.pivot_table(index=["dataset", "task"], columns="variant", values="log10_ratio", sort=False)
    wide = wide.loc[panels, list(dict.fromkeys(table.variant))]
    labels = [f"{d}\n{t.replace('kmeans_', '')}" for d, t in panels]
    gupt = privgene_style("GUPT")["color"]  # every variant is GUPT's: its colour, in shades and hatches
    styles = {
        v: {"color": shade, "hatch": hatch, "edgecolor": gupt, "lw": 0.6}
        for v, shade, hatch in zip(wide.columns, shades(gupt, len(wide.columns)), cycle_hatches())
    }
    _grouped_bars(ax, wide, labels, {v: v.replace("_", " ") for v in wide.columns}, styles=styles)
    ax.axhspan(1.5, 2.5, color="0.85", zorder=0, label="paper: about 100× (2 ± 0.5)")
    ax.set_ylabel(f"log10(GUPT / PrivGene variance), ε = {number(table.epsilon.iloc[0])}")
    ax.set_ylim(0, 1.35 * float(np.nanmax(wide.to_numpy())))
    ax.legend(fontsize="small", loc="upper center", ncols=3)
    figure_title(figure, "Fig. 5's gap at small ε under each GUPT variant: GUPT's variance over PrivGene's, per panel")
    return figure
