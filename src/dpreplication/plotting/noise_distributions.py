"""Figures of additive-noise mechanisms: densities, cost ratios, bounds, audits and privacy profiles.

Used by the truncated-Laplacian replication. Every function takes the tidy
DataFrame that is saved beside the figure and only draws it; lower bounds of
the paper that the spec reconstructs (eqs. 11*, 12*) are labelled
"reconstructed" wherever they appear.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib import ticker

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.plotting.core import new_figure
from dpreplication.plotting.labels import figure_title, number, panel_title

_LINESTYLES = {"truncated_laplace": "-", "laplace": "--", "analytic_gaussian": ":", "classic_gaussian": "-."}
_COLOURS = {
    "truncated_laplace": "#0072B2",
    "laplace": "#D55E00",
    "analytic_gaussian": "#009E73",
    "classic_gaussian": "#CC79A7",
}
RATIO_SYMBOLS = {
    "amplitude_ratio": "$R_V$ = E|X| (trunc. Laplacian) / E|X| (analytic Gaussian)",
    "power_ratio": "$R_D$ = E X² (trunc. Laplacian) / E X² (analytic Gaussian)",
}
RATIO_FIGURES = {
    "amplitude_ratio": ("Fig. 2", "noise-amplitude ratio $R_V$"),
    "power_ratio": ("Fig. 3", "noise-power ratio $R_D$"),
}
"""The paper's figure of each cost ratio (its panel (a) the curves, (b) the map) and what it shows."""


_PARAMETERS = parameter_entries(
    """
    column : str
        The ratio drawn: amplitude_ratio or power_ratio.
    """
)


def _ratio_title(column: str, panel: str, what: str) -> str:
    """Return the title of ``panel`` (``"a"``, ``"b"``) of the paper's figure of ``column``: ``"Fig. 2(a): …"``."""
    if column not in RATIO_FIGURES:
        return f"{column.replace('_', ' ')} {what}"
    figure_id, name = RATIO_FIGURES[column]
    return f"{figure_id}({panel}): {name} {what}"


def _plain_log_ticks(axis, values) -> None:
    """Label a log axis at ``values`` with plain numbers (no minor labels)."""
    axis.set_major_locator(ticker.FixedLocator(sorted(set(values))))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: number(v)))
    axis.set_minor_formatter(ticker.NullFormatter())


def _mechanism_curves(ax, data: pd.DataFrame, x: str, y: str, emphasise_truncated: bool = False) -> None:
    """Draw one curve of ``y`` against ``x`` per mechanism of ``data``, in the mechanism's line style and colour.

    ``data`` has columns mechanism, label, ``x`` and ``y``; ``emphasise_truncated`` draws the truncated
    Laplacian 1.6 wide and the others 1.3 (otherwise the default width).
    """
    for mechanism, rows in data.groupby("mechanism", sort=False):
        width = {"lw": 1.6 if mechanism == "truncated_laplace" else 1.3} if emphasise_truncated else {}
        ax.plot(
            rows[x],
            rows[y],
            ls=_LINESTYLES.get(mechanism, "-"),
            color=_COLOURS.get(mechanism),
            **width,
            label=rows.label.iloc[0],
        )


def density_overlay(data: pd.DataFrame, annotations: pd.DataFrame):
    """Fig. 1: the truncated-Laplacian density with Laplace (dashed) and analytic-Gaussian (dotted) overlays.

    The region ``[A - Δ, A]`` is shaded and labelled with its mass.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns mechanism, label, x, density.
    annotations : pandas.DataFrame
        Columns quantity, value (bound, delta_region_lower, delta_region_upper, delta_region_mass, …).
    """
    notes = dict(zip(annotations.quantity, annotations.value))
    figure, axes = new_figure(width=6.4, height=3.8)
    ax = axes[0][0]
    _mechanism_curves(ax, data, "x", "density", emphasise_truncated=True)
    tl = data[data.mechanism == "truncated_laplace"]
    region = tl[(tl.x >= notes["delta_region_lower"]) & (tl.x <= notes["delta_region_upper"])]
    ax.fill_between(region.x, 0.0, region.density, color=_COLOURS["truncated_laplace"], alpha=0.3, lw=0)
    peak = float(region.density.max())
    ax.annotate(
        f"mass δ = {number(notes['delta_region_mass'])}\non [A − Δ, A]",
        xy=(0.5 * (notes["delta_region_lower"] + notes["delta_region_upper"]), 0.5 * peak),
        xytext=(0.0, 45.0),
        textcoords="offset points",
        ha="center",
        fontsize=8,
        arrowprops={"arrowstyle": "->", "lw": 0.8},
    )
    for sign in (-1, 1):
        ax.axvline(sign * notes["bound"], color="0.5", lw=0.6, ls="--")
    ax.text(
        notes["bound"], ax.get_ylim()[1] * 0.97, f" A = {number(notes['bound'], 4)}", va="top", ha="left", fontsize=8
    )
    ax.set_xlabel("noise x")
    ax.set_ylabel("density")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    figure_title(figure, "Fig. 1: the truncated-Laplacian density, with the Laplace and analytic-Gaussian densities")
    return figure


@shared_parameters(_PARAMETERS)
def ratio_lines(data: pd.DataFrame, column: str):
    """Figs 2(a)/3(a): a cost ratio against ε (log axis), one curve per δ, with the break-even line y = 1.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns delta, epsilon and ``column``.
    {column}
    """
    figure, axes = new_figure(width=6.0, height=4.0)
    ax = axes[0][0]
    for delta, rows in data.groupby("delta", sort=False):
        ax.plot(rows.epsilon, rows[column], label=f"δ = {number(delta)}")
    ax.axhline(1.0, color="k", ls="--", lw=0.9, label="ratio = 1 (break-even)")
    ax.set_xscale("log")
    ax.set_ylim(0.0, 1.22)
    ax.set_yticks(np.arange(0.0, 1.01, 0.2))
    ax.set_xlabel("ε")
    ax.set_ylabel(RATIO_SYMBOLS.get(column, column))
    ax.legend(loc="upper center", ncol=4, fontsize=7)
    figure_title(figure, _ratio_title(column, "a", "against ε, one curve per δ"))
    return figure


@shared_parameters(_PARAMETERS)
def ratio_heatmap(data: pd.DataFrame, column: str, levels=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)):
    """Figs 2(b)/3(b): a cost ratio over log10 ε × log10 δ, coloured, with labelled contour lines.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns log10_delta, log10_epsilon and ``column``.
    {column}
    levels : sequence of float
        The ratios of the labelled contour lines.
    """
    grid = data.pivot(index="log10_delta", columns="log10_epsilon", values=column).sort_index().sort_index(axis=1)
    x, y, z = grid.columns.to_numpy(float), grid.index.to_numpy(float), grid.to_numpy(float)
    figure, axes = new_figure(width=6.4, height=4.4)
    ax = axes[0][0]
    mesh = ax.pcolormesh(x, y, z, shading="nearest", cmap="viridis", vmin=0.0, vmax=1.0, rasterized=True)
    contours = ax.contour(x, y, z, levels=list(levels), colors="white", linewidths=0.8)
    # label each stretch of a contour (one long enough to carry a label) away from the frame, so
    # that no label is clipped, and away from the labels already placed, so that none overlap
    box = np.array([[x.min(), y.min()], [x.max(), y.max()]])
    placed = []
    for path in contours.get_paths():
        for segment in path.to_polygons(closed_only=False):
            unit = (segment - box[0]) / (box[1] - box[0])  # axes fraction
            if len(unit) < 2 or np.linalg.norm(np.diff(unit, axis=0), axis=1).sum() < 0.2:
                continue
            margin = np.minimum(unit, 1 - unit).min(axis=1)
            along = np.abs(np.arange(len(unit)) - (len(unit) - 1) / 2) / len(unit)  # 0 at the middle
            apart = np.min([np.linalg.norm(unit - p, axis=1) for p in placed], axis=0) if placed else 1.0
            score = np.minimum(margin, 0.1) + np.minimum(apart, 0.15) - 0.05 * along
            best = int(np.argmax(np.where(margin >= 0.06, score, -np.inf)))
            if margin[best] >= 0.06:
                placed.append(unit[best])
    positions = [tuple(box[0] + p * (box[1] - box[0])) for p in placed]
    ax.clabel(contours, fmt="%.1f", fontsize=7, manual=positions)
    ax.grid(False)
    ax.set_xlabel("log10 ε")
    ax.set_ylabel("log10 δ")
    colourbar = figure.colorbar(mesh, ax=ax)
    colourbar.set_label(RATIO_SYMBOLS.get(column, column), fontsize=7.5)
    figure_title(figure, _ratio_title(column, "b", "over ε and δ"))
    return figure


def _widths_apart(curves: list, width: float = 1.4, step: float = 1.2, tolerance: float = 0.01) -> list[float]:
    """Return a line width per curve (in drawing order) that leaves every curve visible where curves coincide.

    A curve is ``step`` points wider than ``width`` for each later-drawn curve that coincides with it
    (the same number of points, none of them further apart than ``tolerance``, in data units), so
    that coinciding curves are drawn wide underneath, narrow on top, each showing as an edge of the
    one above.
    """
    curves = [np.asarray(curve, float) for curve in curves]
    close = [
        sum(
            1 for later in curves[i + 1 :] if len(later) == len(curve) and np.nanmax(np.abs(curve - later)) <= tolerance
        )
        for i, curve in enumerate(curves)
    ]
    return [width + step * count for count in close]


def bound_gap(data: pd.DataFrame):
    """E1: reconstructed lower bound over upper bound against ε, per δ, with the δ → 0 limit curves.

    Curves of δ that coincide (the small δ) are drawn from wide (first) to narrow, so that each shows.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns delta, epsilon, amplitude_bound_ratio, amplitude_bound_ratio_limit, power_bound_ratio,
        power_bound_ratio_limit.
    """
    figure, axes = new_figure(1, 2, width=9.0, height=3.8)
    panels = (
        ("amplitude", "$V_{low}$ / $V_{up}$  ($V_{low}$ reconstructed)", "δ → 0 limit ε/(e^ε − 1)"),
        ("power", "$D_{low}$ / $D_{up}$  ($D_{low}$ reconstructed)", "δ → 0 limit ε²(e^ε + 1)/(2(e^ε − 1)²)"),
    )
    for index, (ax, (quantity, ylabel, limit_label)) in enumerate(zip(axes[0], panels)):
        curves = [rows.sort_values("epsilon") for _, rows in data.groupby("delta", sort=False)]
        widths = _widths_apart([rows[f"{quantity}_bound_ratio"].to_numpy(float) for rows in curves])
        for rows, width in zip(curves, widths):
            delta = rows.delta.iloc[0]
            ax.plot(rows.epsilon, rows[f"{quantity}_bound_ratio"], lw=width, label=f"δ = {number(delta)}")
        limit = data.drop_duplicates("epsilon").sort_values("epsilon")
        ax.plot(limit.epsilon, limit[f"{quantity}_bound_ratio_limit"], color="k", ls="--", lw=1.0, label=limit_label)
        ax.set_xscale("log")
        ax.set_ylim(0.0, 1.03)
        ax.set_xlabel("ε")
        ax.set_ylabel(ylabel)
        ax.legend(loc="lower left", fontsize=7)
        panel_title(ax, index, f"{quantity}: {ylabel.split('  ')[0]}")
    figure_title(figure, "E1: reconstructed lower bound over upper bound against ε, per δ, with the δ → 0 limits")
    return figure


_LP_STYLES = {
    "lower_bound_reconstructed": ("s", ":"),
    "lp": ("o", "-"),
    "lp_richardson": ("D", "--"),
    "truncated_laplace": ("", "-"),
}


def _lp_label(estimate: str, n: int) -> str:
    return {
        "lower_bound_reconstructed": "lower bound (reconstructed eq. 11*/12*)",
        "lp": f"LP lower bound, N = {n}",
        "lp_richardson": "V* (D*) estimate, Richardson",
        "truncated_laplace": "truncated Laplacian (upper bound)",
    }[estimate]


def lp_optimum(data: pd.DataFrame):
    """E2: reconstructed lower bound ≤ LP(N) ≤ V* (extrapolated) ≤ truncated Laplacian, against ε.

    Top row: the costs (log–log); bottom row: truncated-Laplacian cost over each
    estimate (1 = the truncated Laplacian is optimal).

    Parameters
    ----------
    data : pandas.DataFrame
        Columns epsilon, delta, cost, estimate, bins_per_sensitivity, value, upper_over_value.
    """
    costs = list(dict.fromkeys(data.cost))
    figure, axes = new_figure(2, len(costs), width=4.6 * len(costs), height=6.6, sharex=True)
    names = {"amplitude": ("E|X|", "$V_{up}$ / estimate"), "power": ("E X²", "$D_{up}$ / estimate")}
    for j, cost in enumerate(costs):
        panel = data[data.cost == cost]
        for (estimate, n), rows in panel.groupby(["estimate", "bins_per_sensitivity"], sort=False):
            marker, ls = _LP_STYLES[estimate]
            colour = "k" if estimate == "truncated_laplace" else None
            kwargs = {"marker": marker, "ls": ls, "ms": 4, "color": colour, "label": _lp_label(estimate, n)}
            axes[0][j].plot(rows.epsilon, rows.value, **kwargs)
            if estimate != "truncated_laplace":
                axes[1][j].plot(rows.epsilon, rows.upper_over_value, **kwargs)
        axes[1][j].axhline(1.0, color="k", lw=0.9)
        axes[0][j].set_xscale("log")
        axes[0][j].set_yscale("log")
        axes[1][j].set_yscale("log")
        _plain_log_ticks(axes[1][j].xaxis, panel.epsilon)
        ratios = panel.upper_over_value
        _plain_log_ticks(axes[1][j].yaxis, [t for t in (1, 1.2, 1.5, 2, 3, 5, 10, 20, 50) if t <= 1.1 * ratios.max()])
        panel_title(axes[0][j], j, f"{names[cost][0]} at δ = {number(panel.delta.iloc[0])}")
        panel_title(axes[1][j], len(costs) + j, f"{names[cost][0]}: truncated Laplacian over each estimate")
        axes[0][j].set_ylabel(f"noise {names[cost][0]}")
        axes[1][j].set_ylabel(f"{names[cost][1]}  (1 = optimal)")
        axes[1][j].set_xlabel("ε")
    axes[0][0].legend(loc="lower left", fontsize=7)
    figure_title(figure, "E2: the optimal noise bracketed: lower bounds ≤ V* (D*) ≤ truncated Laplacian, against ε")
    return figure


_SAMPLERS = {"dpreplication": "our sampler (inverse CDF)", "diffprivlib": "diffprivlib LaplaceBoundedNoise"}


def monte_carlo_moments(data: pd.DataFrame, width: float = 3.0):
    """E3: relative error of the empirical E|X| and E X² against the closed forms, with ±``width`` SE bars.

    One panel per moment; x = the (ε, δ) points, one marker per sampler.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns epsilon, delta, sampler, moment, n_samples, relative_error, relative_standard_error.
    width : float
        Half-width of the error bars, in standard errors.
    """
    moments = list(dict.fromkeys(data.moment))
    figure, axes = new_figure(len(moments), 1, width=9.0, height=2.9 * len(moments) + 0.6, sharex=True)
    points = list(dict.fromkeys(zip(data.epsilon, data.delta)))
    position = {p: i for i, p in enumerate(points)}
    samplers = list(dict.fromkeys(data.sampler))
    offsets = dict(zip(samplers, np.linspace(-0.15, 0.15, len(samplers)) if len(samplers) > 1 else [0.0]))
    exact = {"amplitude": "$V_{up}$ = E|X|", "power": "$D_{up}$ = E X²"}
    for index, (ax, moment) in enumerate(zip(axes[:, 0], moments)):
        panel = data[data.moment == moment]
        for sampler, rows in panel.groupby("sampler", sort=False):
            x = [position[p] + offsets[sampler] for p in zip(rows.epsilon, rows.delta)]
            ax.errorbar(
                x,
                rows.relative_error,
                yerr=width * rows.relative_standard_error,
                fmt="o",
                ms=3,
                capsize=2,
                label=f"{_SAMPLERS.get(sampler, sampler)} (n = {int(rows.n_samples.iloc[0]):,} per point)",
            )
        ax.axhline(0.0, color="k", lw=0.9)
        ax.set_ylabel(f"empirical / exact − 1\n({exact.get(moment, moment)})")
        if len(moments) > 1:
            panel_title(ax, index, f"{moment}: {exact.get(moment, moment)}")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(samplers))
    axes[-1][0].set_xticks(range(len(points)))
    axes[-1][0].set_xticklabels([f"ε={number(e)}\n{number(d)}" for e, d in points], fontsize=7)
    axes[-1][0].set_xlabel(f"(ε, δ); bars = ±{number(width)} standard errors")
    single = f", {moments[0]}: {exact.get(moments[0], moments[0])}" if len(moments) == 1 else ""
    figure_title(figure, f"E3: Monte Carlo moments against the closed forms{single}")
    return figure


def privacy_audit(data: pd.DataFrame):
    """E4: hockey-stick divergence H_ε'(d) against the shift d (log y), numerical (markers) and exact (lines).

    One panel per calibration (ε, δ); series ε' = ε and ε' < ε; dashed line at δ.

    Parameters
    ----------
    data : pandas.DataFrame
        Columns epsilon, delta, epsilon_prime, shift, hockey_stick_numeric, hockey_stick_exact.
    """
    cases = list(dict.fromkeys(zip(data.epsilon, data.delta)))
    ncols = min(2, len(cases))
    nrows = math.ceil(len(cases) / ncols)
    figure, axes = new_figure(nrows, ncols, width=4.4 * ncols, height=2.9 * nrows + 0.6)
    for k, (epsilon, delta) in enumerate(cases):
        ax = axes[k // ncols][k % ncols]
        panel = data[(data.epsilon == epsilon) & (data.delta == delta)]
        for eps_prime, rows in panel.groupby("epsilon_prime", sort=False):
            name = "ε' = ε" if eps_prime == epsilon else f"ε' = {number(eps_prime / epsilon)}ε"
            front = 3 if eps_prime == epsilon else 2  # the guarantee's own curve stays visible where they coincide
            (line,) = ax.plot(rows["shift"], rows.hockey_stick_exact, zorder=front, label=f"exact, {name}")
            ax.plot(
                rows["shift"],
                rows.hockey_stick_numeric,
                "o",
                ms=2.5,
                mfc="none",
                color=line.get_color(),
                zorder=front,
                label=f"quadrature, {name}",
            )
        ax.axhline(delta, color="k", ls="--", lw=0.8, label="δ")
        ax.set_yscale("log", nonpositive="mask")
        calibration = f"ε = {number(epsilon)}, δ = {number(delta)}"
        if len(cases) > 1:
            panel_title(ax, k, calibration)
        ax.set_xlabel("shift d (Δ = 1)")
        ax.set_ylabel(r"$H_{\varepsilon'}(d)$")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(labels))  # below: the title is above
    for k in range(len(cases), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    single = f", {calibration}" if len(cases) == 1 else ""
    figure_title(figure, f"E4: hockey-stick divergence against the shift d, by quadrature and exact{single}")
    return figure


def privacy_profiles(data: pd.DataFrame):
    """E5: δ(ε') at shift Δ for mechanisms calibrated to the same (ε, δ); log y (zeros are not drawn).

    Parameters
    ----------
    data : pandas.DataFrame
        Columns mechanism, label, epsilon, delta, epsilon_prime, delta_prime.
    """
    figure, axes = new_figure(width=6.0, height=4.0)
    ax = axes[0][0]
    _mechanism_curves(ax, data, "epsilon_prime", "delta_prime")
    epsilon, delta = float(data.epsilon.iloc[0]), float(data.delta.iloc[0])
    ax.axvline(epsilon, color="0.4", lw=0.8, ls="--")
    ax.axhline(delta, color="0.4", lw=0.8, ls="--")
    ax.set_yscale("log", nonpositive="mask")
    positive = data.delta_prime[data.delta_prime > 0]
    ax.set_ylim(max(float(positive.min()), delta * 1e-6) / 2, 1.5)
    ax.set_xlabel("ε'")
    ax.set_ylabel(r"δ(ε') = $H_{\varepsilon'}(\Delta)$")
    figure_title(
        figure,
        f"E5: privacy profiles, all calibrated to ε = {number(epsilon)}, δ = {number(delta)}; Laplace is 0 for ε' ≥ ε",
    )
    ax.legend(loc="upper right")
    return figure


def small_epsilon_limit(data: pd.DataFrame):
    """E7: R_V and R_D against ε down to the ε → 0 regime, with their limits (dashed; ≈ π/4, π/6 for small δ).

    Parameters
    ----------
    data : pandas.DataFrame
        Columns delta, epsilon, amplitude_ratio, power_ratio, amplitude_ratio_limit, power_ratio_limit,
        amplitude_ratio_limit_small_delta, power_ratio_limit_small_delta.
    """
    figure, axes = new_figure(width=6.0, height=4.0)
    ax = axes[0][0]
    names = {"amplitude": ("$R_V$ (amplitude)", "π/4"), "power": ("$R_D$ (power)", "π/6")}
    for quantity, (label, small) in names.items():
        (line,) = ax.plot(data.epsilon, data[f"{quantity}_ratio"], label=label)
        limit, small_delta = (
            data[f"{quantity}_ratio_limit"].iloc[0],
            data[f"{quantity}_ratio_limit_small_delta"].iloc[0],
        )
        ax.axhline(
            limit,
            color=line.get_color(),
            ls="--",
            lw=0.9,
            label=f"ε → 0 limit {number(limit, 5)} (≈ {small} = {number(small_delta, 5)} as δ → 0)",
        )
    ax.set_xscale("log")
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("ε")
    ax.set_ylabel("truncated Laplacian / analytic Gaussian")
    figure_title(figure, f"E7: $R_V$ and $R_D$ as ε → 0, at δ = {number(float(data.delta.iloc[0]))}")
    ax.legend(loc="lower left", fontsize=7)
    return figure
