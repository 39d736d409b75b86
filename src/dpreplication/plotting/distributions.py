"""Figures that compare output distributions: pmf bars, convergence in TV, P–P plots."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from dpreplication.plotting.core import new_figure
from dpreplication.plotting.labels import figure_title, number, panel_title

_EXACT_MARKERS = {"EM = RNM-Gumbel": ("v", -0.31), "RNM-Laplace": ("^", 0.31)}
"""Exact pmfs other than the reference: (marker, x offset), each on its own side of the bar."""
_SAMPLED_MARKERS = ("o", "s", "D", "P", "X", "h")
"""Markers of the sampled series, reused in turn (with the colour cycle) beyond six."""
_EXACT_DASHES = ((0, (5, 2)), (0, (1, 1.5)), (0, (6, 2, 1.5, 2)), (0, (2, 2)))
"""Dash patterns of the exact TV lines (black), reused in turn beyond four."""


def pmf_bars(data: pd.DataFrame, reference: str = "P&F = RNM-Exp"):
    """Exact reference pmf as bars, sampled frequencies with error bars, other exact pmfs as markers.

    One panel per ε; F1 of the spec.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns epsilon, item, series, kind (exact | sampled), probability, ci_low, ci_high, and n
        (the number of draws of a sampled series).
    reference : str
        The exact series drawn as bars.
    """
    unplaced = set(data[data.kind == "exact"].series) - {reference, *_EXACT_MARKERS}
    if unplaced:
        raise ValueError(
            f"pmf_bars draws the exact series {reference!r} and {sorted(_EXACT_MARKERS)}, not {sorted(unplaced)}"
        )
    epsilons = sorted(data.epsilon.unique())
    figure, axes = new_figure(1, len(epsilons), width=3.6 * len(epsilons), height=3.4)
    for index, (ax, epsilon) in enumerate(zip(axes[0], epsilons)):
        panel = data[data.epsilon == epsilon]
        exact = panel[panel.kind == "exact"]
        sampled = panel[panel.kind == "sampled"]
        base = exact[exact.series == reference]
        ax.bar(base.item, base.probability, width=0.8, color="0.85", edgecolor="0.4", label=f"{reference} (exact)")
        algorithms = list(dict.fromkeys(sampled.series))
        offsets = np.linspace(-0.15, 0.15, len(algorithms)) if len(algorithms) > 1 else [0.0]
        for offset, marker, algorithm in zip(offsets, itertools.cycle(_SAMPLED_MARKERS), algorithms):
            rows = sampled[sampled.series == algorithm]
            ax.errorbar(
                rows.item + offset,
                rows.probability,
                yerr=[rows.probability - rows.ci_low, rows.ci_high - rows.probability],
                fmt=marker,
                ms=3.5,
                capsize=2,
                label=f"{algorithm} (n={int(rows.n.iloc[0]):,})",
            )
        for series, (marker, offset) in _EXACT_MARKERS.items():
            rows = exact[exact.series == series]
            if len(rows):
                ax.scatter(
                    rows.item + offset,
                    rows.probability,
                    marker=marker,
                    s=30,
                    facecolors="none",
                    edgecolors="k",
                    linewidths=0.8,
                    zorder=3,
                    label=f"{series} (exact)",
                )
        if len(epsilons) > 1:
            panel_title(ax, index, f"ε = {number(epsilon)}")
        ax.set_xlabel("output item r")
        ax.set_xticks(sorted(base.item))
    axes[0][0].set_ylabel("P(output = r)")
    axes[0][-1].legend(loc="upper right")
    single = f", ε = {number(epsilons[0])}" if len(epsilons) == 1 else ""
    figure_title(figure, f"F1: exact {reference} pmf, sampled frequencies and the other exact pmfs{single}")
    return figure


def tv_convergence(data: pd.DataFrame):
    """F2 of the spec: log–log TV(empirical, exact) against n: sampled series, a shaded null band, exact TV lines.

    The exact TV lines are black, told apart by their dashes in the legend (below the axes).

    Parameters
    ----------
    data : pandas.DataFrame
        Columns n, series, kind (sampled | null band | exact), tv.
    """
    figure, axes = new_figure(width=6.4, height=4.8)
    ax = axes[0][0]
    band = data[data.kind == "null band"].pivot(index="n", columns="series", values="tv").sort_index()
    low, mid, high = (band[c] for c in sorted(band.columns, key=lambda c: float(c.split()[1].rstrip("%"))))
    ax.fill_between(band.index, low, high, color="0.85", label=f"null band ({low.name[5:]}–{high.name[5:]})")
    ax.plot(band.index, mid, color="0.5", lw=0.8, label="null median")
    for series, rows in data[data.kind == "sampled"].groupby("series", sort=False):
        ax.plot(rows.n, rows.tv, marker="o", ms=3.5, label=series)
    exact = data[data.kind == "exact"].groupby("series", sort=False)
    for dashes, (series, rows) in zip(itertools.cycle(_EXACT_DASHES), exact):
        # in the legend, not as text by the line: exact TVs close together would overprint
        ax.plot(rows.n, rows.tv, ls=dashes, lw=1.1, color="k", alpha=0.7, label=series)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of draws n")
    ax.set_ylabel("TV(empirical, exact P&F pmf)")
    handles, labels = ax.get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=3)  # covers no point
    figure_title(figure, "F2: TV between the empirical and the exact P&F pmf against the number of draws")
    return figure


def pp_plot(data: pd.DataFrame):
    """F3 of the spec: empirical frequency against exact P&F probability (log–log), inset against exact EM.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns item, series, empirical, exact_pf, exact_em.
    """
    figure, axes = new_figure(width=5.6, height=5.0)
    ax = axes[0][0]
    positive = data[data.empirical > 0]
    lo = positive[["empirical", "exact_pf"]].min().min() / 2
    for series, rows in positive.groupby("series", sort=False):
        ax.scatter(rows.exact_pf, rows.empirical, s=9, alpha=0.8, label=series)
    ax.plot([lo, 1], [lo, 1], color="k", lw=0.8, label="y = x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("exact P&F probability")
    ax.set_ylabel("empirical frequency")
    ax.legend(loc="upper left")
    inset = ax.inset_axes([0.6, 0.14, 0.36, 0.34])
    for _series, rows in positive.groupby("series", sort=False):
        inset.scatter(rows.exact_em, rows.empirical, s=4, alpha=0.8)
    inset.plot([lo, 1], [lo, 1], color="k", lw=0.6)
    inset.set_xscale("log")
    inset.set_yscale("log")
    inset.set_xlabel("exact EM probability", fontsize=7)
    inset.tick_params(labelsize=7)
    figure_title(figure, "F3: P–P plot, empirical frequency against exact P&F probability")
    return figure
