"""Figures of DaRRM noise functions γ: their shapes, the errors they give, and the region F.

Every function takes the tidy table of :mod:`dpreplication.replications.darrm.analytic` that is saved
beside the figure and only draws it. Colours follow the paper: γ_opt (ours) red, γ_Sub blue,
γ_DSub cyan, γ_const (randomized response) green.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpreplication.plotting.core import new_figure
from dpreplication.plotting.labels import figure_title, number, panel_title

_OPT_STYLE = dict(
    label=r"$\gamma_{opt}$ (Ours)", color="#D62728", marker="o", mfc="none", mew=1.2, ls="-", lw=1.8, ms=7, zorder=5
)
SERIES_STYLE = {
    "opt": _OPT_STYLE,
    # γ_opt for a given prior: γ_opt's open markers; T_P's in its own colour and marker
    "opt-U": {**_OPT_STYLE, "label": r"$\gamma_{opt\text{-}U}$ (Ours, $\mathcal{T}_U$)"},
    "opt-P": {
        **_OPT_STYLE,
        "label": r"$\gamma_{opt\text{-}P}$ (Ours, $\mathcal{T}_P$)",
        "color": "#9467BD",
        "marker": "v",
        "lw": 1.6,
        "zorder": 4,
    },
    "Sub": dict(label=r"$\gamma_{Sub}$ (Baseline)", color="#1F77B4", marker="s", ls="--", lw=1.3, ms=3.5, zorder=3),
    "DSub": dict(label=r"$\gamma_{DSub}$ (Baseline)", color="#17BECF", marker="^", ls="-.", lw=1.3, ms=3.5, zorder=3),
    "const": dict(
        label=r"$\gamma_{const}$ (Baseline, RR)", color="#2CA02C", marker="D", ls=":", lw=1.5, ms=3, zorder=2
    ),
}
PRIOR_TITLES = {
    "T_U": r"actual $p_i \sim U[0,1]$",
    "T_P": r"actual $p_i \sim U([0,.3]\cup[.7,1])$",
    "p=0.5": r"actual $p_i = 0.5$",
    "U[0,0.1]": r"actual $p_i \sim U[0,0.1]$",
    "U[0.4,0.6]": r"actual $p_i \sim U[0.4,0.6]$",
}


LOG_Y_PRIORS = ("U[0,0.1]", "U[0.4,0.6]")
"""Actual priors whose error panel has a log y axis (F9's; the paper's are linear): there the errors
of γ_opt-U and γ_opt-P are 10²–10⁴ times below γ_const's and invisible on a linear axis."""


def _style(series: str) -> dict:
    return SERIES_STYLE.get(series, dict(label=series, marker="o", ls="-"))


def _setting(rows: pd.DataFrame) -> str:
    """``K=…, ε=…, Δ=…`` of a table (one setting per figure)."""
    first = rows.iloc[0]
    Delta = float(first.Delta)
    delta = r", $\delta=1-(1-\Delta)^m$" if Delta > 0 else r", $\delta=0$"
    epsilon = number(float(first.epsilon), in_math=True)
    return rf"$K={int(first.K)}$, $\epsilon={epsilon}$, $\Delta={number(Delta, in_math=True)}${delta}"


def gamma_shapes(data: pd.DataFrame, ncols: int = 3):
    """γ(l) against the vote count l, one panel per m (titled "(a) m = …"), one line per series.

    The constant γ of randomized response (dotted) is labelled with its value in each panel.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns figure, K, m, epsilon, Delta, series, l, gamma (the ``SHAPE_COLUMNS`` table).
    ncols : int
        Panels per row (at most one per m).
    """
    ms = list(dict.fromkeys(data.m))
    ncols = min(ncols, len(ms))
    nrows = math.ceil(len(ms) / ncols)
    K = int(data.K.iloc[0])
    figure, axes = new_figure(nrows, ncols, width=3.2 * ncols, height=2.5 * nrows + 0.9, sharey=True)
    for index, m in enumerate(ms):
        ax = axes[index // ncols][index % ncols]
        panel = data[data.m == m]
        for series, rows in panel.groupby("series", sort=False):
            style = dict(_style(series))
            if K > 21:  # many points: markers only on the optimised γ, whose jaggedness they show
                style.update(ms=2.5, mew=0.8) if series.startswith("opt") else style.update(marker=None)
            ax.plot(rows.l, rows.gamma, **style)
            if series == "const":  # name the dotted line where it is: its constant value, at the right end
                value = float(rows.gamma.iloc[-1])
                ax.annotate(
                    rf"$\gamma_{{const}}={number(value, in_math=True)}$",
                    (K, value),
                    xytext=(0, -6),  # below the line, clear of its markers
                    textcoords="offset points",
                    ha="right",
                    va="top",
                    fontsize=7,
                    color=style.get("color"),
                )
        if len(ms) > 1:
            panel_title(ax, index, f"m = {number(m)}")
        ax.set_xlim(-0.02 * K, 1.02 * K)
        ax.set_ylim(-0.04, 1.06)
        if K <= 21:
            ax.set_xticks(range(0, K + 1, 1 if K <= 11 else 2))
        if index // ncols == nrows - 1:
            ax.set_xlabel(r"number of votes for 1, $l$")
        if index % ncols == 0:
            ax.set_ylabel(r"$\gamma(l)$")
    for index in range(len(ms), nrows * ncols):
        axes[index // ncols][index % ncols].set_visible(False)
    entries = {}  # every series of every panel (one may be absent from the first), in order
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    figure.legend(list(entries.values()), list(entries), loc="outside lower center", ncol=len(entries))
    single = f", $m={number(ms[0], in_math=True)}$" if len(ms) == 1 else ""  # a single panel: the title says it
    figure_title(figure, f"{data.figure.iloc[0]}: shape of γ, {_setting(data)}{single}")
    return figure


VALUE_DIGITS = 3
"""Significant digits of the value written above each error bar (:func:`~dpreplication.plotting.labels.number`)."""


POINT_SIZE = 4.5
"""The markers' size of an error panel drawn with points (pt)."""

LABEL_GAP = 3
"""How far a value label starts above its std bar's top (pt)."""


def _error_panel(ax, panel: pd.DataFrame, annotate: bool, log_y: bool = False, points: bool = False) -> list:
    """Draw E(DaRRM_γ) ± std per m (x) and series: bars, or points with std bars where ``points``.

    A bar's length means nothing on a log axis, so a log panel should be drawn with ``points``;
    there a lower std end at or below zero stops at the axis, and a zero mean is a hollow circle
    on the axis. Where ``annotate``, each mean is written above its std bar, horizontally; return
    these value labels, each as ``(text, its slot's width in data units)``.
    """
    ms = list(dict.fromkeys(panel.m))
    series_list = list(dict.fromkeys(panel.series))
    width = 0.8 / len(series_list)
    x = np.arange(len(ms))
    top = float((panel.error_mean + panel.error_std).max())
    positive = panel.error_mean[panel.error_mean > 0]
    log_y = bool(log_y and len(positive))
    bottom = float(positive.min()) / 3 if log_y else 0.0
    values = []
    for i, series in enumerate(series_list):
        rows = panel[panel.series == series].set_index("m").loc[ms]
        style = _style(series)
        positions = x - 0.4 + width * (i + 0.5)
        mean, std = rows.error_mean.to_numpy(float), rows.error_std.to_numpy(float)
        if points:
            shown = mean > 0 if log_y else np.ones(len(mean), bool)
            lower = np.minimum(std, mean - bottom) if log_y else std
            ax.errorbar(
                positions[shown],
                mean[shown],
                yerr=[lower[shown], std[shown]],
                fmt=style.get("marker", "o"),
                ms=POINT_SIZE,
                mfc=style.get("mfc", style.get("color")),
                mew=1.0,
                color=style.get("color"),
                capsize=1.5,
                elinewidth=0.8,
                label=style["label"],
            )
            if log_y and (~shown).any():
                zeros = positions[~shown]
                ax.plot(zeros, [bottom] * len(zeros), "o", mfc="none", color=style.get("color"), clip_on=False)
        else:
            ax.bar(
                positions,
                mean,
                width=width * 0.92,
                color=style.get("color"),
                label=style["label"],
                yerr=std,
                capsize=1.5,
                error_kw=dict(lw=0.7, ecolor="0.2"),
            )
        if annotate:
            for position, value, spread in zip(positions, mean, std):
                text = ax.annotate(
                    number(value, VALUE_DIGITS, keep_zeros=True),
                    (position, max(value + spread, bottom)),  # above the std bar
                    xytext=(0, LABEL_GAP + (POINT_SIZE / 2 + 1 if points else 0)),  # clear of a point's marker
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    color="0.25",
                )
                values.append((text, width))
    ax.set_xticks(x, [f"m = {number(m)}" for m in ms])
    if points:
        ax.set_xlim(-0.5, len(ms) - 0.5)
        for boundary in x[1:] - 0.5:  # the groups of m apart, as the bars' gaps did
            ax.axvline(boundary, color="0.85", lw=0.6, zorder=0)
    if log_y:
        ax.set_yscale("log")
        ax.set_ylim(bottom, top * 8)  # room below the smallest value and for the labels above
    else:
        height = top * 1.22 if top > 0 else 1.0
        ax.set_ylim(-0.03 * height if points else 0.0, height)  # a point at 0 is drawn whole
    return values


FIT_SHARE = 0.9
"""A value label is written horizontally when it takes at most this share of its slot's width (a gap to the next)."""


def _upright_unless_they_fit(figure, values: list) -> None:
    """Turn every value label of ``figure`` upright (90°), unless each fits its slot horizontally.

    ``values`` holds ``(text, slot width in data units)``; a label fits when it is at most
    :data:`FIT_SHARE` of its slot wide. The figure is laid out first, so that the slots' widths
    on the page are final. One orientation for the whole figure.
    """
    if (engine := figure.get_layout_engine()) is not None:
        engine.execute(figure)
    renderer = figure.canvas.get_renderer()

    def slot(text, width: float) -> float:
        x0, x1 = text.axes.transData.transform([(0.0, 1.0), (width, 1.0)])[:, 0]
        return abs(x1 - x0)

    if any(text.get_window_extent(renderer).width > FIT_SHARE * slot(text, width) for text, width in values):
        for text, _ in values:
            text.set_rotation(90)


def _prior_title(prior: str, log_y) -> str:
    """Return what the panel of the actual ``prior`` shows: the prior, and its log scale where ``prior in log_y``."""
    return PRIOR_TITLES.get(prior, f"actual prior {prior}") + (" (log scale)" if prior in log_y else "")


def ensemble_errors(data: pd.DataFrame, log_y=LOG_Y_PRIORS):
    """Draw E(DaRRM_γ) (mean ± std over repeats) per m and series; one panel per actual prior.

    Bars, unless a panel has a log y axis (on which a bar's length means nothing): then every
    panel shows points with std bars, as the paper's error plots do. Each mean is written above
    its std bar, horizontally where every such label fits its bar's width, else upright. A single
    panel's prior goes into the figure title; several panels are titled "(a) <prior>", ….

    Parameters
    ----------
    data : pandas.DataFrame
        Columns figure, K, m, epsilon, Delta, series, actual_prior, error_mean, error_std, n_draws,
        n_repeats, note (the ``ERROR_COLUMNS`` table).
    log_y : collection of str
        The actual priors whose panel has a log y axis.
    """
    priors = list(dict.fromkeys(data.actual_prior))
    n_ms = data.m.nunique()
    n_series = data.series.nunique()
    panel_width = max(3.0, 0.22 * n_ms * n_series + 1.2)
    figure, axes = new_figure(1, len(priors), width=max(6.4, panel_width * len(priors)), height=4.0)
    points = any(prior in log_y for prior in priors)  # a log panel has no bars: then no panel has
    values = []
    for index, (ax, prior) in enumerate(zip(axes[0], priors)):
        panel = data[data.actual_prior == prior]
        values += _error_panel(ax, panel, annotate=True, log_y=prior in log_y, points=points)
        if len(priors) > 1:
            panel_title(ax, index, _prior_title(prior, log_y))
        if (panel.error_mean == 0).all() and panel.note.astype(str).str.len().max() > 0:
            ax.text(
                0.5,
                0.5,
                "E = 0 for every γ:\n" + r"$\alpha_l = \alpha_{K-l}$ when all $p_i = 1/2$",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize=8,
            )
    axes[0][0].set_ylabel(r"$\mathcal{E}(\mathrm{DaRRM}_\gamma)$ (mean ± std)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(labels))
    first = data.iloc[0]
    prior = f"{_prior_title(priors[0], log_y)}; " if len(priors) == 1 else ""  # a single panel: the title says it
    figure_title(
        figure,
        f"{first.figure}: "
        + r"$\mathcal{E}(\mathrm{DaRRM}_\gamma)$, "
        + _setting(data)
        + f"\n{prior}Monte Carlo: {int(first.n_draws):,} draws × {int(first.n_repeats)} repeats",
    )
    _upright_unless_they_fit(figure, values)
    return figure


def feasible_region(data: pd.DataFrame):
    """Region F of ``(p, p')`` for one (ε, Δ)-DP mechanism, shaded, with its four DP boundaries.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns figure, epsilon, Delta, element (region | boundary), label, description, order, p,
        p_prime (the ``REGION_COLUMNS`` table; region rows are the vertices in polygon order).
    """
    figure, axes = new_figure(width=5.4, height=5.0)
    ax = axes[0][0]
    region = data[data.element == "region"].sort_values("order")
    ax.fill(region.p, region.p_prime, color="#1F77B4", alpha=0.3, lw=0, label=r"feasible region $\mathcal{F}$")
    ax.scatter(region.p, region.p_prime, color="#1F77B4", s=14, zorder=4, label=r"vertices of $\mathcal{F}$")
    colors = ["#D62728", "#2CA02C", "#FF7F0E", "#9467BD"]
    boundaries = data[data.element == "boundary"]
    for color, (label, rows) in zip(colors, boundaries.groupby("label", sort=True)):
        rows = rows.sort_values("order")
        pretty = (
            rows.description.iloc[0]
            .replace("e^eps", r"e^{\epsilon}")
            .replace("Delta", r"\Delta")
            .replace("p'", "p^{\\prime}")
        )
        ax.plot(rows.p, rows.p_prime, color=color, lw=1.2, label=f"{label}  ${pretty}$")
    ax.plot([0, 1], [0, 1], color="0.5", lw=0.6, ls=":")
    for _, vertex in region.iterrows():
        name = f"({number(vertex.p)}, {number(vertex.p_prime)})"
        if np.isclose(vertex.p, vertex.p_prime):  # (0,0) inside the square; (1,1) right of it, clear of (c), (d)
            offset, align = ((6, 2), "left") if vertex.p < 0.5 else ((6, -3), "left")
        else:
            offset, align = ((6, -10), "left") if vertex.p > vertex.p_prime else ((-6, 4), "right")
        ax.annotate(name, (vertex.p, vertex.p_prime), xytext=offset, textcoords="offset points", fontsize=7, ha=align)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel(r"$p = \Pr[M(D) = 1]$")
    ax.set_ylabel(r"$p^{\prime} = \Pr[M(D^{\prime}) = 1]$")
    first = data.iloc[0]
    figure_title(
        figure,
        rf"{first.figure}: feasible region of one $(\epsilon, \Delta)$-DP mechanism, "
        rf"$\epsilon={number(float(first.epsilon), in_math=True)}$, $\Delta={number(float(first.Delta), in_math=True)}$",
    )
    ax.legend(loc="upper left", fontsize=7)
    return figure


def gnmax_variance(data: pd.DataFrame):
    """F10: σ²(λ) of GNMax against the Rényi order λ, one panel per dataset, one curve per m.

    The order λ* the calibration picks is marked.

    Parameters
    ----------
    data : pandas.DataFrame
        The ``gnmax_variance_table`` columns.
    """
    datasets = list(dict.fromkeys(data.dataset))
    figure, axes = new_figure(1, len(datasets), width=4.2 * len(datasets), height=3.6, sharey=True)
    for index, (ax, dataset) in enumerate(zip(axes[0], datasets)):
        for m, curve in data[data.dataset == dataset].groupby("m"):
            (line,) = ax.plot(
                curve.order, curve.variance, lw=1.2, label=f"m = {m} (ε = {number(curve.epsilon_query.iloc[0])})"
            )
            chosen = curve[curve.chosen]
            ax.plot(chosen.order, chosen.variance, "o", color=line.get_color(), ms=5)
        ax.set_yscale("log")
        ax.set_xlabel(r"Rényi order $\lambda$")
        title = dataset.replace("_", "-")
        if len(datasets) > 1:
            panel_title(ax, index, title)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel(r"$\sigma^2(\lambda) = \lambda / (\varepsilon - \ln(1/\delta)/(\lambda - 1))$")
    delta = data.delta_query.iloc[0]
    single = f"{title}: " if len(datasets) == 1 else ""
    figure_title(
        figure, f"F10: {single}GNMax variance against the RDP order (per query, δ = {number(delta)}); dots: λ*"
    )
    return figure
