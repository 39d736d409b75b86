"""Figures of curves against a parameter: error against ε or against the number of candidates."""

from __future__ import annotations

import itertools

import pandas as pd
from matplotlib.lines import Line2D

from dpreplication.plotting.core import new_figure
from dpreplication.plotting.labels import figure_title, number, panel_title
from dpreplication.plotting.styles import privgene_style


def utility_grid(data: pd.DataFrame):
    """Rows = tasks, columns = datasets: exact expected error against ε (log y), MC overlay.

    The y axis starts at 1 or lower, so that every positive lower end of a Monte Carlo interval is
    shown; an interval reaching 0 or below (heavy tails, normal approximation) ends in a hollow
    triangle on the axis, and a Monte Carlo mean of 0 is a hollow circle on the axis, each with
    its legend entry where the figure has one.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns dataset, task, epsilon, series, kind (exact | sampled), error, ci_low, ci_high.
    """
    tasks = list(dict.fromkeys(data.task))
    datasets = list(dict.fromkeys(data.dataset))
    figure, axes = new_figure(len(tasks), len(datasets), width=2.6 * len(datasets), height=2.4 * len(tasks) + 0.4)
    on_axis_keys = {}
    for i, task in enumerate(tasks):
        for j, dataset in enumerate(datasets):
            ax = axes[i][j]
            panel = data[(data.task == task) & (data.dataset == dataset)]
            for series, rows in panel[panel.kind == "exact"].groupby("series", sort=False):
                ax.plot(rows.epsilon, rows.error, label=series)
            sampled = panel[panel.kind == "sampled"]
            lows = sampled.ci_low[sampled.ci_low > 0]
            bottom = min(1.0, 0.5 * lows.min()) if len(lows) else 1.0
            for series, rows in sampled.groupby("series", sort=False):
                shown = rows[rows.error > 0]
                ax.errorbar(
                    shown.epsilon,
                    shown.error,
                    yerr=[shown.error - shown.ci_low.clip(lower=bottom), shown.ci_high - shown.error],
                    fmt="o",
                    ms=3,
                    capsize=2,
                    color="k",
                    label=series,
                )
                for on_axis, marker, meaning in (
                    (shown[shown.ci_low <= 0], "v", "interval reaching 0 (on the axis)"),
                    (rows[rows.error == 0], "o", "Monte Carlo mean 0 (on the axis)"),
                ):
                    if len(on_axis):
                        style = dict(ls="none", marker=marker, ms=4, mfc="none", color="k", label=meaning)
                        ax.plot(on_axis.epsilon, [bottom] * len(on_axis), clip_on=False, **style)
                        on_axis_keys.setdefault(meaning, Line2D([], [], **style))
            ax.set_yscale("log")
            ax.set_ylim(bottom=bottom)
            ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 2), useMathText=True)
            if len(tasks) * len(datasets) > 1:
                panel_title(ax, i * len(datasets) + j, f"{dataset} — {task}")
            if i == len(tasks) - 1:
                ax.set_xlabel("ε")
            if j == 0:
                ax.set_ylabel("expected error")
    entries = [(h, label) for h, label in zip(*axes[0][0].get_legend_handles_labels()) if label not in on_axis_keys]
    entries += [(key, meaning) for meaning, key in on_axis_keys.items()]  # the panels' on-axis markers, once each
    handles, labels = zip(*entries)
    figure.legend(handles, labels, loc="outside lower center", ncol=len(labels))
    single = f", {datasets[0]} — {tasks[0]}" if len(tasks) * len(datasets) == 1 else ""
    figure_title(figure, f"F4: exact expected error against ε on DPBench histograms, with Monte Carlo means{single}")
    return figure


def worst_case(data: pd.DataFrame):
    """Worst-case expected error (over the gap) against the number of candidates n, and the ratio.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns n, mechanism, worst_error, ratio_em_over_pf.
    """
    figure, axes = new_figure(1, 2, width=8.0, height=3.4)
    left, right = axes[0]
    for mechanism, rows in data.groupby("mechanism", sort=False):
        left.plot(rows.n, rows.worst_error, marker="o", ms=3, label=mechanism)
    left.set_xscale("log")
    left.set_xlabel("number of candidates n")
    left.set_ylabel("worst-case expected error (ε = Δ = 1)")
    left.legend()
    panel_title(left, 0, "worst-case expected error")
    ratio = data.drop_duplicates("n")
    right.plot(ratio.n, ratio.ratio_em_over_pf, marker="o", ms=3, color="k")
    right.axhline(1, color="0.5", lw=0.8)
    right.set_xscale("log")
    right.set_xlabel("number of candidates n")
    right.set_ylabel("EM / P&F worst-case error")
    panel_title(right, 1, "EM over P&F")
    figure_title(figure, "Worst-case expected error over the gap against the number of candidates n (ε = Δ = 1)")
    return figure


def _band(ax, rows, x, y, low, high, **style):
    """Plot a line with its confidence band (where the band is known); return the line."""
    (line,) = ax.plot(rows[x], rows[y], **style)
    if rows[low].notna().any():
        ax.fill_between(rows[x], rows[low], rows[high], color=line.get_color(), alpha=0.2, lw=0)
    return line


def ratio_against_c(data: pd.DataFrame, marked_c: float | None = None, reference_c: float = 0.5e-3):
    """PrivGene Fig. 2: misclassification relative to its value at the reference c, against c.

    One panel per task (LR, SVM), one line per dataset with its 95 % band, a dotted line at
    ``marked_c`` (the paper's choice) and a line at ratio 1.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns task, dataset, c_x1e3, ratio, ratio_ci_low, ratio_ci_high.
    marked_c : float, optional
        The paper's choice of c, marked by the dotted line; None marks none.
    reference_c : float
        The reference c the ratios are relative to, as the y label names it.
    """
    tasks = list(dict.fromkeys(data.task))
    figure, axes = new_figure(1, len(tasks), width=3.4 * len(tasks), height=3.0)
    for ax, task in zip(axes[0], tasks):
        for dataset, rows in data[data.task == task].groupby("dataset", sort=False):
            _band(
                ax,
                rows.sort_values("c_x1e3"),
                "c_x1e3",
                "ratio",
                "ratio_ci_low",
                "ratio_ci_high",
                marker="o",
                ms=3,
                label=dataset,
            )
        if marked_c is not None:
            ax.axvline(marked_c * 1e3, color="k", ls=":", lw=1)
        ax.axhline(1.0, color="0.5", lw=0.8)
        ax.set_xlabel("c (×10⁻³)")
        if len(tasks) > 1:
            panel_title(ax, tasks.index(task), task.upper())
    axes[0][0].set_ylabel(f"error / error at c = {number(reference_c * 1e3)}×10⁻³")
    axes[0][0].legend()
    single = f", {tasks[0].upper()}" if len(tasks) == 1 else ""
    figure_title(
        figure, f"Fig. 2: misclassification relative to c = {number(reference_c * 1e3)}×10⁻³, against c{single}"
    )
    return figure


def error_against_iteration(data: pd.DataFrame, title: str = ""):
    """PrivGene Figs 6–7: test error of the vector selected at each GA iteration.

    One panel per task, one line (with its 95 % band) per selection variant, in the PrivGene
    styles of :mod:`~dpreplication.plotting.styles`; the flat references (NoPrivacy, Majority)
    thin and on top. The legend is below the panels, where it covers no curve.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns task, method, iteration, error, ci_low, ci_high, and ``r`` (NaN for the flat
        references).
    title : str
        The figure's title (``"Fig. 6: …"``); "Test error against the GA iteration" when empty.
    """
    tasks = list(dict.fromkeys(data.task))
    figure, axes = new_figure(1, len(tasks), width=3.4 * len(tasks), height=3.8)
    for ax, task in zip(axes[0], tasks):
        panel = data[data.task == task]
        for k, (method, rows) in enumerate(panel.groupby("method", sort=False)):
            style = privgene_style(method)
            if rows.r.isna().all():  # a flat reference: thin, above the curves
                ax.plot(rows.iteration, rows.error, label=method, **{**style, "marker": ""}, lw=1.2, zorder=4)
                continue
            # solid curves wide underneath, patterned ones narrow on top: where two coincide
            # (EEM and EEM-RNMExp), both stay visible; markers every few iterations, staggered
            every = max(1, len(rows) // 6)
            solid = style["ls"] == "-"
            style.update(lw=1.9 if solid else 1.3, zorder=3 if solid else 3.5, ms=4, markevery=(k % every, every))
            _band(ax, rows, "iteration", "error", "ci_low", "ci_high", label=method, **style)
        ax.set_xlabel("iteration i")
        if len(tasks) > 1:
            panel_title(ax, tasks.index(task), task.upper())
    axes[0][0].set_ylabel("misclassification rate")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=min(4, len(labels)))  # covers no curve
    single = f" ({tasks[0].upper()})" if len(tasks) == 1 else ""
    figure_title(figure, (title or "Test error against the GA iteration") + single)
    return figure


_VARIANT_STYLES = ("-", "-.", (0, (1, 3)))
"""Line styles of the selection variants, reused in turn (with the colour cycle) beyond three."""


def dampening_against_iteration(data: pd.DataFrame):
    """PrivGene extra: the dampening factors Δ1, Δ2 and the Δ used against the iteration (log y).

    Rows = datasets, columns = tasks; for each selection variant its Δ used, and Δ1, Δ2 of
    the EEM runs.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns dataset, task, method, iteration, delta1_mean, delta2_mean, delta_used_mean.
    """
    datasets, tasks = list(dict.fromkeys(data.dataset)), list(dict.fromkeys(data.task))
    figure, axes = new_figure(len(datasets), len(tasks), width=3.4 * len(tasks), height=2.6 * len(datasets))
    for i, j in ((i, j) for i in range(len(datasets)) for j in range(len(tasks))):
        ax = axes[i][j]
        panel = data[(data.dataset == datasets[i]) & (data.task == tasks[j])]
        eem_runs = panel[panel.method == "EEM"]
        # Δ2 is EEM's Δ used from iteration 2 on: wide underneath that curve, so that both show
        ax.plot(eem_runs.iteration, eem_runs.delta1_mean, color="0.4", ls="--", lw=1, label="Δ1 (EEM runs)")
        ax.plot(eem_runs.iteration, eem_runs.delta2_mean, color="0.6", ls=":", lw=3.2, label="Δ2 (EEM runs)")
        for style, (method, rows) in zip(itertools.cycle(_VARIANT_STYLES), panel.groupby("method", sort=False)):
            colour = privgene_style(method)["color"]
            ax.plot(rows.iteration, rows.delta_used_mean, ls=style, color=colour, label=f"Δ used ({method})")
        ax.set_yscale("log")
        if len(datasets) * len(tasks) > 1:
            panel_title(ax, i * len(tasks) + j, f"{datasets[i]} — {tasks[j].upper()}")
        if i == len(datasets) - 1:
            ax.set_xlabel("iteration i")
        if j == 0:
            ax.set_ylabel("dampening factor")
    axes[0][0].legend()
    single = f", {datasets[0]} — {tasks[0].upper()}" if len(datasets) * len(tasks) == 1 else ""
    figure_title(figure, f"PrivGene's dampening factors Δ1, Δ2 and the Δ used, against the GA iteration{single}")
    return figure


def _methods_against_epsilon(ax, panel: pd.DataFrame, value: str, methods, dashed, small: bool = False) -> None:
    """Draw ``methods`` of one Figs 3–5 panel on ``ax`` (an inset when ``small``), in their PrivGene styles."""
    for method, rows in panel[panel.method.isin(methods)].groupby("method", sort=False):
        style = privgene_style(method)
        if method in dashed:  # a flat reference: thin, no markers, above the methods it may coincide with
            style.update(ls=style["ls"] if style["ls"] != "-" else "--", marker="", lw=1.0 if small else 1.2, zorder=4)
        else:
            style.update(ms=2.5 if small else 3.5, lw=1.1 if small else 1.4, zorder=3)
        _band(ax, rows, "epsilon", value, "ci_low", "ci_high", label=method, **style)
    ax.set_xscale("log")
    grid = sorted(panel.epsilon.unique())
    ax.set_xticks(grid, [] if small else [number(e) for e in grid], minor=False)
    ax.set_xticks([], minor=True)


PRIVGENE_FIGURES = {"lr": "Fig. 3", "svm": "Fig. 4", "kmeans": "Fig. 5"}
"""The PrivGene figure of each task of Figs 3–5 (a k-means task is ``kmeans_k<k>``)."""
_TASK_NAMES = {"lr": "logistic regression", "svm": "linear SVM", "kmeans": "k-means"}


def _privgene_figure_title(tasks, ylabel: str) -> str:
    """Return the title of a Figs 3–5 figure of ``tasks``: ``"Fig. 3: <ylabel> against ε, logistic regression"``."""
    kinds = list(dict.fromkeys(task.partition("_")[0] for task in tasks))
    figure_id = PRIVGENE_FIGURES.get(kinds[0]) if len(kinds) == 1 else None
    what = f"{ylabel} against ε, {', '.join(_TASK_NAMES.get(kind, kind) for kind in kinds)}"
    return f"{figure_id}: {what}" if figure_id else what[0].upper() + what[1:]


def value_against_epsilon(data: pd.DataFrame, value: str, ylabel: str, titles: list, log_y=(), dashed=()):
    """PrivGene Figs 3–5: one panel per (dataset, task), one line per method with its 95 % band, against ε.

    The x axis is log (the grid doubles). Each method has its style of
    :mod:`~dpreplication.plotting.styles` in every PrivGene figure. On a linear y axis, methods
    below 5 % of the top one (which would merge on the axis) are repeated in a zoomed inset. The
    figure's title names the paper's figure of the panels' task (:data:`PRIVGENE_FIGURES`).

    Parameters
    ----------
    data : pandas.DataFrame
        Columns dataset, task, method, epsilon, ``value``, ci_low, ci_high.
    value : str
        The column drawn.
    ylabel : str
        The y-axis label.
    titles : list
        ``[dataset, task, title]`` of each panel, in order; the titles of several panels are
        lettered (``"(a) Adult"``), a single panel's goes into the figure's title.
    log_y : collection of str
        Datasets whose panels get a log y axis.
    dashed : collection of str
        Reference methods drawn dashed.
    """
    figure, axes = new_figure(1, len(titles), width=2.9 * len(titles), height=3.5)
    for ax, (dataset, task, title) in zip(axes[0], titles):
        panel = data[(data.dataset == dataset) & (data.task == task)]
        _methods_against_epsilon(ax, panel, value, list(dict.fromkeys(panel.method)), dashed)
        if dataset in log_y:
            ax.set_yscale("log")
        else:  # a linear axis: methods far below the top one get a zoomed inset, lest they merge
            top = panel.groupby("method", sort=False)[["ci_high", value]].max().max(axis=1)
            low = list(top.index[top < 0.05 * top.max()])
            if low and len(low) < len(top):
                inset = ax.inset_axes([0.42, 0.42, 0.55, 0.5])
                _methods_against_epsilon(inset, panel, value, low, dashed, small=True)
                inset.set_ylim(0, 1.15 * float(top[low].max()))
                inset.tick_params(labelsize=7)
                inset.set_title("zoom", fontsize=7, pad=2)
        ax.set_xlabel("ε")
        if len(titles) > 1:
            ax.set_title(title)
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(labels))  # covers no curve
    single = f" ({' '.join(titles[0][2].split())})" if len(titles) == 1 else ""
    figure_title(figure, _privgene_figure_title([task for _, task, _ in titles], ylabel) + single)
    return figure
