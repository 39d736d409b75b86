"""Truncated Laplacian mechanism (Geng, Ding, Guo & Kumar, AISTATS 2020).

One function per figure or table of the replication spec (§8 figures 1–3,
the canonical-values table, §9 extras E1–E8), each returning a tidy
``pandas.DataFrame`` with one row per plotted point. The mathematics lives
in :mod:`dpreplication.mechanisms.additive`,
:mod:`dpreplication.mechanisms.bounds` and
:mod:`dpreplication.optimisation.noise_lp`; this module only composes it.
Sensitivity ``Δ = 1`` unless passed; the ratios are Δ-free. Random steps draw
from the ``np.random.Generator`` passed in. Defaults are the spec's values;
the workflow's quick profile passes smaller grids.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, special

from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms import bounds
from dpreplication.optimisation.noise_lp import optimal_noise_lower_bound, richardson_extrapolation
from dpreplication.scorecard.claims import DATA_STATUS_COLUMN

PAPER = "truncated_laplace"

FIGURE_DELTAS = (1e-1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10)
"""δ curves of Figs 2(a), 3(a) and E1 (spec §8, proposed grid)."""

TABLE_EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
TABLE_DELTAS = (1e-2, 1e-4, 1e-6, 1e-10)
"""The (ε, δ) grid of the spec §8 ratio table and of the E6 baseline table."""

CANONICAL_POINTS = ((1.0, 1e-6), (0.1, 1e-6), (1.0, 1e-2), (0.5, 1e-5), (2.0, 1e-4), (5.0, 1e-3), (0.01, 1e-2))
"""(ε, δ) rows of the spec §8 canonical-values table."""

AUDIT_POINTS = ((1.0, 1e-6), (0.1, 1e-3), (3.0, 1e-2), (0.5, 0.2))
"""(ε, δ) of the spec §10 check 4 / E4 privacy audit."""

MONTE_CARLO_POINTS = tuple((e, d) for e in (0.1, 0.5, 1.0, 2.0, 5.0) for d in TABLE_DELTAS)
"""20 (ε, δ) points of E3."""

LIBRARY_POINTS = CANONICAL_POINTS + ((10.0, 1e-10),)
"""(ε, δ) of the E8 cross-check: the canonical points and the hardest one, (10, 1e-10)."""

MECHANISM_LABELS = {
    "truncated_laplace": "Truncated Laplacian",
    "laplace": "Laplace (ε-DP)",
    "analytic_gaussian": "Analytic Gaussian",
    "classic_gaussian": "Classic Gaussian",
}


def _grid(epsilons, deltas) -> tuple[np.ndarray, np.ndarray]:
    """Flattened product grid, δ-major (one block of ε values per δ)."""
    delta_grid, epsilon_grid = np.meshgrid(np.asarray(deltas, float), np.asarray(epsilons, float), indexing="ij")
    return epsilon_grid.ravel(), delta_grid.ravel()


def _ratios(epsilon: np.ndarray, delta: np.ndarray, sensitivity: float) -> dict[str, np.ndarray]:
    sigma = np.atleast_1d(add.analytic_gaussian_sigma(epsilon, delta, sensitivity))
    amplitude = np.atleast_1d(add.truncated_laplace_amplitude(epsilon, delta, sensitivity))
    power = np.atleast_1d(add.truncated_laplace_power(epsilon, delta, sensitivity))
    return {
        "truncated_laplace_amplitude": amplitude,
        "truncated_laplace_power": power,
        "analytic_gaussian_sigma": sigma,
        "analytic_gaussian_amplitude": np.atleast_1d(add.gaussian_amplitude(sigma)),
        "analytic_gaussian_power": np.atleast_1d(add.gaussian_power(sigma)),
        "amplitude_ratio": amplitude / add.gaussian_amplitude(sigma),
        "power_ratio": power / add.gaussian_power(sigma),
    }


def amplitude_ratio(epsilon, delta) -> np.ndarray:
    """``R_V = V_up / (σ_aG √(2/π))`` (Fig. 2): truncated-Laplacian over analytic-Gaussian amplitude."""
    return (
        add.truncated_laplace_amplitude(epsilon, delta)
        / add.gaussian_amplitude(add.analytic_gaussian_sigma(epsilon, delta))
    )[()]


def power_ratio(epsilon, delta) -> np.ndarray:
    """``R_D = D_up / σ_aG²`` (Fig. 3): truncated-Laplacian over analytic-Gaussian power."""
    return (
        add.truncated_laplace_power(epsilon, delta) / add.gaussian_power(add.analytic_gaussian_sigma(epsilon, delta))
    )[()]


# --------------------------------------------------------------------------- Figure 1


def figure1_density(
    epsilon: float = 1.0,
    delta: float = 0.05,
    sensitivity: float = 1.0,
    n_points: int = 1001,
    extent: float = 1.25,
) -> pd.DataFrame:
    """Fig. 1: densities on ``x ∈ [-extent·A, extent·A]`` (spec: Δ = 1, ε = 1, δ = 0.05, extent 1.25).

    Truncated Laplacian (A = 2.900477, B = 0.529099), Laplace(Δ/ε) and
    ``N(0, σ_aG²)`` (σ_aG = 1.332778). The grid also holds ``±A`` and the next
    float outward so that the jump at the support edge is drawn vertically.
    Columns: ``mechanism, label, x, density``.
    """
    cal = add.calibrate_truncated_laplace(epsilon, delta, sensitivity)
    bound, scale = float(cal.bound), float(cal.scale)
    edges = [bound, np.nextafter(bound, np.inf)]
    x = np.unique(np.concatenate([np.linspace(-extent * bound, extent * bound, n_points), edges, np.negative(edges)]))
    sigma = float(add.analytic_gaussian_sigma(epsilon, delta, sensitivity))
    densities = {
        "truncated_laplace": add.truncated_laplace_pdf(x, scale, bound),
        "laplace": np.exp(-np.abs(x) / scale) / (2.0 * scale),
        "analytic_gaussian": np.exp(-0.5 * (x / sigma) ** 2) / (sigma * np.sqrt(2.0 * np.pi)),
    }
    return pd.concat(
        [
            pd.DataFrame({"mechanism": name, "label": MECHANISM_LABELS[name], "x": x, "density": values})
            for name, values in densities.items()
        ],
        ignore_index=True,
    )


def figure1_annotations(epsilon: float = 1.0, delta: float = 0.05, sensitivity: float = 1.0) -> pd.DataFrame:
    """Fig. 1 annotations: λ, A, B, σ_aG and the shaded region ``[A - Δ, A]`` of mass exactly δ.

    Columns: ``quantity, value`` (quantities ``scale, bound, normaliser,
    analytic_gaussian_sigma, delta_region_lower, delta_region_upper, delta_region_mass``).
    """
    cal = add.calibrate_truncated_laplace(epsilon, delta, sensitivity)
    scale, bound = float(cal.scale), float(cal.bound)
    region_mass = float(add.truncated_laplace_tail(bound - sensitivity, scale, bound))
    values = {
        "scale": scale,
        "bound": bound,
        "normaliser": float(cal.normaliser),
        "analytic_gaussian_sigma": float(add.analytic_gaussian_sigma(epsilon, delta, sensitivity)),
        "delta_region_lower": bound - sensitivity,
        "delta_region_upper": bound,
        "delta_region_mass": region_mass,
    }
    return pd.DataFrame({"quantity": list(values), "value": list(values.values())})


# --------------------------------------------------------------------------- Figures 2 and 3


def _log_grid(values, log10_range, n_points: int) -> np.ndarray:
    """``values`` as floats, or ``n_points`` log-spaced values over ``10**log10_range`` when ``values`` is None."""
    return np.logspace(*log10_range, int(n_points)) if values is None else np.asarray(values, float)


def _ratio_curves(quantity: str, epsilons, deltas, sensitivity: float) -> pd.DataFrame:
    """Truncated-Laplacian over analytic-Gaussian ``quantity`` ("amplitude" or "power") on the ε × δ grid."""
    eps, dlt = _grid(epsilons, deltas)
    r = _ratios(eps, dlt, sensitivity)
    return pd.DataFrame(
        {
            "delta": dlt,
            "epsilon": eps,
            f"truncated_laplace_{quantity}": r[f"truncated_laplace_{quantity}"],
            "analytic_gaussian_sigma": r["analytic_gaussian_sigma"],
            f"analytic_gaussian_{quantity}": r[f"analytic_gaussian_{quantity}"],
            f"{quantity}_ratio": r[f"{quantity}_ratio"],
        }
    )


def figure2_amplitude_ratio(
    epsilons=None, deltas=FIGURE_DELTAS, sensitivity: float = 1.0, log10_epsilon_range=(-2.0, 1.0), n_epsilon: int = 301
) -> pd.DataFrame:
    """Fig. 2(a): ``R_V = V_up/(σ_aG √(2/π))`` vs ε, one curve per δ.

    Spec grid: ε = logspace(-2, 1, 301) (used when ``epsilons`` is None),
    δ ∈ {1e-1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10}.
    Columns: ``delta, epsilon, truncated_laplace_amplitude, analytic_gaussian_sigma,
    analytic_gaussian_amplitude, amplitude_ratio``.
    """
    return _ratio_curves("amplitude", _log_grid(epsilons, log10_epsilon_range, n_epsilon), deltas, sensitivity)


def figure3_power_ratio(
    epsilons=None, deltas=FIGURE_DELTAS, sensitivity: float = 1.0, log10_epsilon_range=(-2.0, 1.0), n_epsilon: int = 301
) -> pd.DataFrame:
    """Fig. 3(a): ``R_D = D_up/σ_aG²`` vs ε, one curve per δ (same grid as Fig. 2(a)).

    Columns: ``delta, epsilon, truncated_laplace_power, analytic_gaussian_sigma,
    analytic_gaussian_power, power_ratio``.
    """
    return _ratio_curves("power", _log_grid(epsilons, log10_epsilon_range, n_epsilon), deltas, sensitivity)


def _heatmap(log10_epsilon_range, n_epsilon, log10_delta_range, n_delta, column) -> pd.DataFrame:
    log_eps = np.linspace(*log10_epsilon_range, n_epsilon)
    log_delta = np.linspace(*log10_delta_range, n_delta)
    eps, dlt = _grid(10.0**log_eps, 10.0**log_delta)
    r = _ratios(eps, dlt, 1.0)
    return pd.DataFrame(
        {
            "log10_delta": np.repeat(log_delta, n_epsilon),
            "log10_epsilon": np.tile(log_eps, n_delta),
            "delta": dlt,
            "epsilon": eps,
            column: r[column],
        }
    )


def figure2_amplitude_ratio_heatmap(
    log10_epsilon_range=(-3.0, 1.0), n_epsilon: int = 200, log10_delta_range=(-12.0, -1.0), n_delta: int = 150
) -> pd.DataFrame:
    """Fig. 2(b): ``R_V`` on a log10 ε × log10 δ grid (spec: [-3, 1] × 200, [-12, -1] × 150; ≈ 0.3 s).

    Columns: ``log10_delta, log10_epsilon, delta, epsilon, amplitude_ratio``.
    """
    return _heatmap(log10_epsilon_range, n_epsilon, log10_delta_range, n_delta, "amplitude_ratio")


def figure3_power_ratio_heatmap(
    log10_epsilon_range=(-3.0, 1.0), n_epsilon: int = 200, log10_delta_range=(-12.0, -1.0), n_delta: int = 150
) -> pd.DataFrame:
    """Fig. 3(b): ``R_D`` on the Fig. 2(b) grid. Columns: ``log10_delta, log10_epsilon, delta, epsilon, power_ratio``."""
    return _heatmap(log10_epsilon_range, n_epsilon, log10_delta_range, n_delta, "power_ratio")


def ratio_table(epsilons=TABLE_EPSILONS, deltas=TABLE_DELTAS) -> pd.DataFrame:
    """The spec §8 table of ``R_V`` and ``R_D`` (ε ∈ {0.01, …, 10} × δ ∈ {1e-2, 1e-4, 1e-6, 1e-10}).

    Columns: ``delta, epsilon, amplitude_ratio, power_ratio``.
    """
    eps, dlt = _grid(epsilons, deltas)
    r = _ratios(eps, dlt, 1.0)
    return pd.DataFrame(
        {"delta": dlt, "epsilon": eps, "amplitude_ratio": r["amplitude_ratio"], "power_ratio": r["power_ratio"]}
    )


# --------------------------------------------------------------------------- facts about the ratios

_RATIO_FUNCTIONS = {"amplitude": amplitude_ratio, "power": power_ratio}


def max_ratio_over_epsilon(
    quantity: str, delta: float, log10_epsilon_range=(-4.0, 2.0), n_grid: int = 241
) -> tuple[float, float]:
    """``(argmax ε, max_ε R(ε, δ))`` for ``quantity`` "amplitude" (R_V) or "power" (R_D).

    Grid search over ``log10 ε`` in the range, then bounded Brent refinement
    between the neighbours of the best grid point (spec §10 check 8: 0.8987 at
    ε ≈ 0.336 and 0.7681 at ε ≈ 0.557 for δ = 0.1).
    """
    ratio = _RATIO_FUNCTIONS[quantity]
    log_eps = np.linspace(*log10_epsilon_range, n_grid)
    values = ratio(10.0**log_eps, delta)
    best = int(np.argmax(values))
    lo, hi = log_eps[max(best - 1, 0)], log_eps[min(best + 1, n_grid - 1)]
    if best in (0, n_grid - 1):
        return float(10.0 ** log_eps[best]), float(values[best])
    result = optimize.minimize_scalar(
        lambda t: -float(ratio(10.0**t, delta)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-7}
    )
    return float(10.0**result.x), float(-result.fun)


def _break_even_delta(quantity: str, log10_epsilon_range) -> tuple[float, float]:
    """Smallest δ at which ``max_ε R(ε, δ)`` reaches 1, by bisection on δ ∈ [0.3, 0.499]."""

    def excess(delta):
        return max_ratio_over_epsilon(quantity, delta, log10_epsilon_range)[1] - 1.0

    delta = optimize.brentq(excess, 0.3, 0.499, xtol=1e-6)
    return delta, max_ratio_over_epsilon(quantity, delta, log10_epsilon_range)[0]


def ratio_facts(
    log10_epsilon_range=(-4.0, 2.0),
    log10_delta_range=(-12.0, -1.0),
    n_epsilon: int = 241,
    n_delta: int = 45,
    counter_example_delta: float = 0.45,
) -> pd.DataFrame:
    """Checkable statements of spec §8 about ``R_V``, ``R_D`` and the Gaussian baselines.

    Spec values: over δ ≤ 0.1, ε ∈ [1e-4, 100]: sup R_V = 0.8987 (δ = 0.1,
    ε ≈ 0.336), sup R_D = 0.768 (ε ≈ 0.557), inf R_V = 0.110, inf R_D = 0.0155
    (ε = 100, δ = 1e-12); at δ = 1e-2 peaks 0.889 (ε ≈ 0.034) and 0.743
    (ε ≈ 0.056); break-even δ ≈ 0.395 (amplitude, ε ≈ 1.4) / 0.402 (power,
    ε ≈ 1.9); max R_V at δ = 0.45 is 1.027; strict decrease in ε on [0.01, 10]
    for δ ≤ 1e-4; increase in δ over [1e-12, 0.1] at ε = 1, 10 but not at
    ε ≤ 0.1; σ_aG/σ_cl = 0.8605 at (1, 1e-10), 0.7973 at (1, 1e-6), 0.0169 at
    (0.01, 0.1). Boolean facts are reported as 1.0 / 0.0; ``epsilon`` or
    ``delta`` is NaN where a fact spans a range of it.
    Columns: ``fact, quantity, epsilon, delta, value``.
    """
    rows = []
    log_eps = np.linspace(*log10_epsilon_range, n_epsilon)
    deltas = np.logspace(*log10_delta_range, n_delta)
    eps, dlt = _grid(10.0**log_eps, deltas)
    r = _ratios(eps, dlt, 1.0)
    for quantity in ("amplitude", "power"):
        values = r[f"{quantity}_ratio"]
        top_delta = float(dlt[np.argmax(values)])
        arg_eps, top = max_ratio_over_epsilon(quantity, top_delta, log10_epsilon_range, n_epsilon)
        rows.append(("sup_ratio", quantity, arg_eps, top_delta, top))
        low = int(np.argmin(values))
        rows.append(("inf_ratio", quantity, float(eps[low]), float(dlt[low]), float(values[low])))
        arg_eps, top = max_ratio_over_epsilon(quantity, 1e-2, log10_epsilon_range, n_epsilon)
        rows.append(("peak_ratio", quantity, arg_eps, 1e-2, top))
        arg_eps, top = max_ratio_over_epsilon(quantity, counter_example_delta, log10_epsilon_range, n_epsilon)
        rows.append(("peak_ratio", quantity, arg_eps, counter_example_delta, top))
        delta_even, eps_even = _break_even_delta(quantity, log10_epsilon_range)
        rows.append(("break_even_delta", quantity, eps_even, delta_even, delta_even))

        curve_eps = np.logspace(-2, 1, 301)
        ratio = _RATIO_FUNCTIONS[quantity]
        decreasing = all(np.all(np.diff(ratio(curve_eps, d)) < 0) for d in (1e-4, 1e-6, 1e-8, 1e-10))
        rows.append(("decreasing_in_epsilon_for_delta_le_1e-4", quantity, np.nan, 1e-4, float(decreasing)))
        curve_delta = np.logspace(-12, -1, 111)
        for e in (0.01, 0.1, 1.0, 10.0):
            increasing = bool(np.all(np.diff(ratio(e, curve_delta)) > 0))
            rows.append(("increasing_in_delta", quantity, e, np.nan, float(increasing)))

    for e, d in ((1.0, 1e-10), (1.0, 1e-6), (0.01, 0.1)):
        saving = add.analytic_gaussian_sigma(e, d) / add.classic_gaussian_sigma(e, d)
        rows.append(("analytic_over_classic_sigma", "sigma", e, d, float(saving)))
    eps, dlt = _grid(np.logspace(-2, 0, 41), np.logspace(-10, -1, 37))
    saving = add.analytic_gaussian_sigma(eps, dlt) / add.classic_gaussian_sigma(eps, dlt)
    rows.append(("analytic_over_classic_sigma_min", "sigma", np.nan, np.nan, float(saving.min())))
    rows.append(("analytic_over_classic_sigma_max", "sigma", np.nan, np.nan, float(saving.max())))
    return pd.DataFrame(rows, columns=["fact", "quantity", "epsilon", "delta", "value"])


# --------------------------------------------------------------------------- canonical values


def canonical_values(points=CANONICAL_POINTS, sensitivity: float = 1.0) -> pd.DataFrame:
    """Spec §8 canonical-values table (Δ = 1), plus the classic-Gaussian comparison.

    Columns: ``epsilon, delta, bound, amplitude_upper, power_upper,
    amplitude_lower_reconstructed, power_lower_reconstructed,
    analytic_gaussian_sigma, amplitude_ratio, power_ratio,
    classic_gaussian_sigma, classic_amplitude_ratio, classic_power_ratio,
    classic_gaussian_valid`` (the classic σ is (ε, δ)-DP only for ε < 1; spec
    quotes it at (1, 1e-6): 5.298803, 0.236524, 0.071223).
    """
    eps = np.array([p[0] for p in points], float)
    dlt = np.array([p[1] for p in points], float)
    r = _ratios(eps, dlt, sensitivity)
    classic = np.atleast_1d(add.classic_gaussian_sigma(eps, dlt, sensitivity))
    return pd.DataFrame(
        {
            "epsilon": eps,
            "delta": dlt,
            "bound": np.atleast_1d(add.truncated_laplace_bound(eps, dlt, sensitivity)),
            "amplitude_upper": r["truncated_laplace_amplitude"],
            "power_upper": r["truncated_laplace_power"],
            "amplitude_lower_reconstructed": np.atleast_1d(bounds.amplitude_lower_bound(eps, dlt, sensitivity)),
            "power_lower_reconstructed": np.atleast_1d(bounds.power_lower_bound(eps, dlt, sensitivity)),
            "analytic_gaussian_sigma": r["analytic_gaussian_sigma"],
            "amplitude_ratio": r["amplitude_ratio"],
            "power_ratio": r["power_ratio"],
            "classic_gaussian_sigma": classic,
            "classic_amplitude_ratio": r["truncated_laplace_amplitude"] / add.gaussian_amplitude(classic),
            "classic_power_ratio": r["truncated_laplace_power"] / add.gaussian_power(classic),
            "classic_gaussian_valid": eps < 1.0,
        }
    )


# --------------------------------------------------------------------------- E1 bound gap


def bound_kinks(delta: float = 0.1, log10_epsilon_range=(-3.0, 1.0), n_fine: int = 40_001) -> pd.DataFrame:
    """Where the reconstructed-bound curves bend, and why: the lower bounds depend on ε through
    ``m = ⌊n⌋``, ``n = (1/ε) ln(1 + (e^ε − 1)/(2δ))``, so they are not smooth where ``n`` crosses an
    integer. The kinks are detected on a fine log grid as the outliers of the second difference
    of ``log(V_low/V_up)`` and ``log(D_low/D_up)`` in ``log ε`` (above 100× its median), and each
    is matched to the nearest crossing, found by root finding. Columns: ``delta, quantity,
    floor_n_before, floor_n_after, crossing_epsilon, kink_epsilon, relative_distance,
    relative_grid_step, unexplained_kinks`` (one row per crossing; ``kink_epsilon`` NaN if none was
    detected there) and one row per kink that no crossing explains (``crossing_epsilon`` NaN);
    ``unexplained_kinks`` counts the latter per quantity."""
    log_lo, log_hi = log10_epsilon_range
    eps = np.logspace(log_lo, log_hi, int(n_fine))
    dlt = np.full_like(eps, delta)
    n_of = lambda e: float(add.calibrate_truncated_laplace(e, delta).n)  # noqa: E731
    n_values = np.array([n_of(e) for e in (eps[0], eps[-1])])
    crossings = []
    for k in range(int(np.floor(n_values.min())) + 1, int(np.floor(n_values.max())) + 1):
        crossings.append((k, optimize.brentq(lambda e: n_of(e) - k, eps[0], eps[-1], xtol=1e-14, rtol=1e-14)))
    step = (log_hi - log_lo) / (n_fine - 1) * np.log(10.0)
    rows = []
    for quantity, ratio in (
        ("amplitude", bounds.amplitude_lower_bound(eps, dlt) / bounds.amplitude_upper_bound(eps, dlt)),
        ("power", bounds.power_lower_bound(eps, dlt) / bounds.power_upper_bound(eps, dlt)),
    ):
        curvature = np.abs(np.diff(np.log(ratio), 2))
        kinks = eps[1:-1][curvature > 100.0 * np.median(curvature)]
        # one kink per cluster of adjacent flagged points
        kinks = (
            np.array(
                [
                    group.mean()
                    for group in np.split(kinks, np.flatnonzero(np.diff(np.log(kinks)) > 3 * step) + 1)
                    if group.size
                ]
            )
            if kinks.size
            else kinks
        )
        explained = set()
        for k, crossing in crossings:
            nearest = int(np.argmin(np.abs(np.log(kinks / crossing)))) if kinks.size else None
            kink = float(kinks[nearest]) if nearest is not None else np.nan
            if nearest is not None:
                explained.add(nearest)
            rows.append(
                {
                    "delta": delta,
                    "quantity": quantity,
                    "floor_n_before": k,
                    "floor_n_after": k - 1,
                    "crossing_epsilon": crossing,
                    "kink_epsilon": kink,
                    "relative_distance": abs(np.log(kink / crossing)),
                    "relative_grid_step": step,
                }
            )
        for index, kink in enumerate(kinks):
            if index not in explained:
                rows.append(
                    {
                        "delta": delta,
                        "quantity": quantity,
                        "floor_n_before": np.nan,
                        "floor_n_after": np.nan,
                        "crossing_epsilon": np.nan,
                        "kink_epsilon": float(kink),
                        "relative_distance": np.nan,
                        "relative_grid_step": step,
                    }
                )
    table = pd.DataFrame(rows)
    table["unexplained_kinks"] = table.groupby("quantity")["crossing_epsilon"].transform(lambda c: int(c.isna().sum()))
    return table


def bound_gap(
    epsilons=None, deltas=FIGURE_DELTAS, log10_epsilon_range=(-3.0, 1.0), n_epsilon: int = 201
) -> pd.DataFrame:
    """E1: ``V_low/V_up`` and ``D_low/D_up`` vs ε (spec: log grid on [1e-3, 10], Fig. 2 δ grid; 201 ε points here).

    With the δ → 0 limit curves ``ε/(e^ε - 1)`` and ``ε²(e^ε + 1)/(2(e^ε - 1)²)``
    (Thms 6.1, 7.1). Lower bounds are the **reconstructed** eqs. (11*), (12*).
    Columns: ``delta, epsilon, amplitude_upper, amplitude_lower_reconstructed,
    amplitude_bound_ratio, amplitude_bound_ratio_limit, power_upper,
    power_lower_reconstructed, power_bound_ratio, power_bound_ratio_limit``.
    """
    eps, dlt = _grid(_log_grid(epsilons, log10_epsilon_range, n_epsilon), deltas)
    v_up, v_low = bounds.amplitude_upper_bound(eps, dlt), bounds.amplitude_lower_bound(eps, dlt)
    d_up, d_low = bounds.power_upper_bound(eps, dlt), bounds.power_lower_bound(eps, dlt)
    return pd.DataFrame(
        {
            "delta": dlt,
            "epsilon": eps,
            "amplitude_upper": v_up,
            "amplitude_lower_reconstructed": v_low,
            "amplitude_bound_ratio": v_low / v_up,
            "amplitude_bound_ratio_limit": bounds.amplitude_ratio_small_delta_limit(eps),
            "power_upper": d_up,
            "power_lower_reconstructed": d_low,
            "power_bound_ratio": d_low / d_up,
            "power_bound_ratio_limit": bounds.power_ratio_small_delta_limit(eps),
        }
    )


# --------------------------------------------------------------------------- E2 LP optimum


def lp_optimum(
    epsilons=(0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
    delta: float = 1e-3,
    resolutions=(8, 16),
    costs=("amplitude", "power"),
    backend: str = "scipy",
    solver: str = "highs",
) -> pd.DataFrame:
    """E2: ``V_low ≤ LP(N) ≤ V* (≈ Richardson) ≤ V_up`` vs ε, and likewise for the power.

    Spec grid: δ = 1e-3, ε ∈ {0.1, 0.2, 0.5, 1, 2, 5}, N ∈ {8, 16} (≈ 30 s with
    HiGHS; ε = 0.1, N = 16 alone takes ≈ 10 s). Spec: ``V_up/V*`` = 1.0005,
    1.0018, 1.0107, 1.045, 1.186, ≈ 3.0 and ``D_up/D*`` = 1.0005, 1.0019, 1.0113,
    1.045, 1.191, ≈ 2.8. ``estimate`` is ``lower_bound_reconstructed``,
    ``lp`` (one row per N), ``lp_richardson`` (``2·LP(2N) - LP(N)``, in general
    :func:`richardson_extrapolation` of the two finest resolutions), or
    ``truncated_laplace``; ``bins_per_sensitivity`` is N
    for LP rows (the finer N for Richardson) and 0 otherwise.
    Columns: ``epsilon, delta, cost, estimate, bins_per_sensitivity, value, upper_over_value``.
    """
    resolutions = sorted(int(n) for n in resolutions)
    rows = []
    for eps in epsilons:
        for cost in costs:
            upper = float(
                bounds.amplitude_upper_bound(eps, delta)
                if cost == "amplitude"
                else bounds.power_upper_bound(eps, delta)
            )
            lower = float(
                bounds.amplitude_lower_bound(eps, delta)
                if cost == "amplitude"
                else bounds.power_lower_bound(eps, delta)
            )
            rows.append((eps, delta, cost, "lower_bound_reconstructed", 0, lower))
            values = []
            for n in resolutions:
                value = optimal_noise_lower_bound(eps, delta, n, cost, backend=backend, solver=solver).value
                values.append(value)
                rows.append((eps, delta, cost, "lp", n, value))
            if len(values) >= 2:
                estimate = richardson_extrapolation(values[-2], values[-1], resolutions[-1] / resolutions[-2])
                rows.append((eps, delta, cost, "lp_richardson", resolutions[-1], estimate))
            rows.append((eps, delta, cost, "truncated_laplace", 0, upper))
    frame = pd.DataFrame(rows, columns=["epsilon", "delta", "cost", "estimate", "bins_per_sensitivity", "value"])
    upper_by_case = frame[frame.estimate == "truncated_laplace"].set_index(["epsilon", "cost"])["value"]
    frame["upper_over_value"] = [upper_by_case[(e, c)] / v for e, c, v in zip(frame.epsilon, frame.cost, frame.value)]
    return frame


# --------------------------------------------------------------------------- E3 Monte Carlo


def _moment_rows(eps, dlt, sampler, samples, bound, amplitude, power):
    rows = []
    for moment, values, exact in (("amplitude", np.abs(samples), amplitude), ("power", samples**2, power)):
        estimate = float(values.mean())
        error = float(values.std(ddof=1) / np.sqrt(values.size))
        rows.append(
            {
                "epsilon": eps,
                "delta": dlt,
                "sampler": sampler,
                "moment": moment,
                "n_samples": values.size,
                "estimate": estimate,
                "standard_error": error,
                "exact": exact,
                "relative_error": estimate / exact - 1.0,
                "relative_standard_error": error / exact,
                "z_score": (estimate - exact) / error,
                "max_abs_sample": float(np.abs(samples).max()),
                "bound": bound,
            }
        )
    return rows


def monte_carlo_moments(
    rng: np.random.Generator,
    points=MONTE_CARLO_POINTS,
    n_samples: int = 1_000_000,
    library_points=MONTE_CARLO_POINTS,
    library_samples: int = 20_000,
) -> pd.DataFrame:
    """E3: empirical ``E|X|`` and ``E X²`` with standard errors vs ``V_up``, ``D_up``.

    Spec: 10⁶ draws of our sampler per point (≈ 0.05 s each) and 2·10⁴ draws of
    ``diffprivlib.mechanisms.LaplaceBoundedNoise`` (≈ 0.3 s each, seeded from
    ``rng``); 20 points ε ∈ {0.1, 0.5, 1, 2, 5} × δ ∈ {1e-2, 1e-4, 1e-6, 1e-10}.
    Rows for diffprivlib are NaN, with a ``data_status`` saying so, when it is not importable.
    Columns: ``epsilon, delta, sampler, moment, n_samples, estimate,
    standard_error, exact, relative_error, relative_standard_error, z_score,
    max_abs_sample, bound`` (relative = divided by the exact moment; sampler
    ``dpreplication`` or ``diffprivlib``).
    """
    rows = []
    for eps, dlt in points:
        cal = add.calibrate_truncated_laplace(eps, dlt)
        samples = add.truncated_laplace_mechanism(np.zeros(n_samples), eps, dlt, rng)  # the release function itself
        rows += _moment_rows(
            eps,
            dlt,
            "dpreplication",
            samples,
            float(cal.bound),
            float(add.truncated_laplace_amplitude(eps, dlt)),
            float(add.truncated_laplace_power(eps, dlt)),
        )
    try:
        from diffprivlib.mechanisms import LaplaceBoundedNoise
    except ImportError as error:
        LaplaceBoundedNoise, missing = None, f"missing: diffprivlib is not installed ({error})"
    for eps, dlt in library_points:
        if LaplaceBoundedNoise is None:
            samples = np.array([np.nan])
        else:
            mechanism = LaplaceBoundedNoise(
                epsilon=eps, delta=dlt, sensitivity=1.0, random_state=np.random.RandomState(int(rng.integers(2**31)))
            )
            samples = np.array([mechanism.randomise(0.0) for _ in range(library_samples)])
        start = len(rows)
        rows += _moment_rows(
            eps,
            dlt,
            "diffprivlib",
            samples,
            float(add.truncated_laplace_bound(eps, dlt)),
            float(add.truncated_laplace_amplitude(eps, dlt)),
            float(add.truncated_laplace_power(eps, dlt)),
        )
        for row in rows[start:]:
            row[DATA_STATUS_COLUMN] = "" if LaplaceBoundedNoise is not None else missing
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- E4 privacy audit


def privacy_audit(
    points=AUDIT_POINTS,
    shifts_per_side: int = 20,
    n_points: int = 2_000_000,
    tightness_factor: float = 0.9,
) -> pd.DataFrame:
    """E4: ``H_{ε'}(d)`` by quadrature of ``(f - e^{ε'} f(· + d))_+`` vs the exact profile, ``d ∈ [-Δ, Δ]``.

    For each (ε, δ) the audit runs at ``ε' = ε`` (bound ``δ(e^{ε|d|} - 1)/(e^ε - 1) ≤ δ``,
    tight at ``|d| = Δ``) and at ``ε' = tightness_factor·ε`` (exceeds δ at
    ``|d| = Δ``: 1.076δ at (0.5, 0.2)). Spec: points (1, 1e-6), (0.1, 1e-3),
    (3, 1e-2), (0.5, 0.2); 2·10⁶ grid points; 41 shifts (≈ 0.5 s per audit).
    Columns: ``epsilon, delta, epsilon_prime, shift, hockey_stick_numeric,
    hockey_stick_exact, error_over_delta``.
    """
    frames = []
    for eps, dlt in points:
        cal = add.calibrate_truncated_laplace(eps, dlt)
        scale, bound = float(cal.scale), float(cal.bound)
        for eps_prime in (eps, tightness_factor * eps):
            audit = add.audit_noise_privacy(
                lambda x: add.truncated_laplace_pdf(x, scale, bound),
                eps_prime,
                dlt,
                (-bound, bound),
                shifts_per_side=shifts_per_side,
                n_points=n_points,
            )
            exact = add.truncated_laplace_hockey_stick(eps_prime, audit.shifts, scale, bound)
            frames.append(
                pd.DataFrame(
                    {
                        "epsilon": eps,
                        "delta": dlt,
                        "epsilon_prime": eps_prime,
                        "shift": audit.shifts,
                        "hockey_stick_numeric": audit.hockey_stick,
                        "hockey_stick_exact": exact,
                        "error_over_delta": (audit.hockey_stick - exact) / dlt,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- E5 privacy profiles


def privacy_profiles(
    epsilon: float = 1.0,
    delta: float = 1e-6,
    epsilon_primes=None,
    max_epsilon_prime_factor: float = 3.0,
    n_epsilon_prime: int = 301,
) -> pd.DataFrame:
    """E5: ``δ(ε') = H_{ε'}(Δ)`` for TL, the analytic Gaussian and Laplace, calibrated to (ε, δ) = (1, 1e-6).

    TL is flat at δ for ε' ≥ ε (the event ``X ∈ (A - Δ, A]`` identifies the
    neighbour); the Gaussian decays; Laplace(Δ/ε) is 0 from ε' = ε on.
    Grid (when ``epsilon_primes`` is None): ε' ∈ linspace(0, max_epsilon_prime_factor·ε,
    n_epsilon_prime), i.e. [0, 3ε] with 301 points by default. Columns: ``mechanism, label, epsilon, delta, epsilon_prime, delta_prime``
    (``epsilon``, ``delta``: the common calibration).
    """
    if epsilon_primes is None:
        epsilon_primes = np.linspace(0.0, max_epsilon_prime_factor * epsilon, int(n_epsilon_prime))
    epsilon_primes = np.asarray(epsilon_primes, float)
    sigma = add.analytic_gaussian_sigma(epsilon, delta)
    profiles = {
        "truncated_laplace": add.truncated_laplace_privacy_profile(epsilon_primes, epsilon, delta),
        "analytic_gaussian": add.gaussian_privacy_profile(epsilon_primes, sigma),
        "laplace": add.laplace_privacy_profile(epsilon_primes, epsilon),
    }
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "mechanism": name,
                    "label": MECHANISM_LABELS[name],
                    "epsilon": epsilon,
                    "delta": delta,
                    "epsilon_prime": epsilon_primes,
                    "delta_prime": values,
                }
            )
            for name, values in profiles.items()
        ],
        ignore_index=True,
    )


# --------------------------------------------------------------------------- E6 baselines


def baseline_table(epsilons=TABLE_EPSILONS, deltas=TABLE_DELTAS) -> pd.DataFrame:
    """E6: amplitude and power of TL, Laplace, classic Gaussian (ε < 1 only) and analytic Gaussian.

    Spec grid: ε ∈ {0.01, 0.1, 0.5, 1, 2, 5, 10} × δ ∈ {1e-2, 1e-4, 1e-6, 1e-10}.
    ``parameter`` is A for TL, the scale Δ/ε for Laplace, σ for the Gaussians.
    Columns: ``epsilon, delta, mechanism, label, parameter, amplitude, power,
    truncated_laplace_amplitude_ratio, truncated_laplace_power_ratio``.
    """
    eps, dlt = _grid(epsilons, deltas)
    tl_amp, tl_pow = add.truncated_laplace_amplitude(eps, dlt), add.truncated_laplace_power(eps, dlt)
    sigma_ag = add.analytic_gaussian_sigma(eps, dlt)
    sigma_cl = add.classic_gaussian_sigma(eps, dlt)
    blocks = {
        "truncated_laplace": (add.truncated_laplace_bound(eps, dlt), tl_amp, tl_pow, np.ones_like(eps, bool)),
        "laplace": (
            add.laplace_scale(eps),
            add.laplace_amplitude(eps),
            add.laplace_power(eps),
            np.ones_like(eps, bool),
        ),
        "classic_gaussian": (sigma_cl, add.gaussian_amplitude(sigma_cl), add.gaussian_power(sigma_cl), eps < 1.0),
        "analytic_gaussian": (
            sigma_ag,
            add.gaussian_amplitude(sigma_ag),
            add.gaussian_power(sigma_ag),
            np.ones_like(eps, bool),
        ),
    }
    frames = []
    for name, (parameter, amplitude, power, valid) in blocks.items():
        frames.append(
            pd.DataFrame(
                {
                    "epsilon": eps[valid],
                    "delta": dlt[valid],
                    "mechanism": name,
                    "label": MECHANISM_LABELS[name],
                    "parameter": parameter[valid],
                    "amplitude": amplitude[valid],
                    "power": power[valid],
                    "truncated_laplace_amplitude_ratio": tl_amp[valid] / amplitude[valid],
                    "truncated_laplace_power_ratio": tl_pow[valid] / power[valid],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- E7 small-ε limit


def small_epsilon_limit(
    epsilons=None, delta: float = 1e-2, log10_epsilon_range=(-6.0, 1.0), n_epsilon: int = 141
) -> pd.DataFrame:
    """E7: ``R_V``, ``R_D`` vs ε down to 1e-6 at δ = 1e-2 and their ε → 0 limits.

    As ε → 0 (δ fixed) ``V_up → Δ/(4δ)``, ``D_up → Δ²/(12δ²)`` and
    ``σ_aG → Δ/(2z)``, ``z = Φ⁻¹((1+δ)/2)``, so ``R_V → √(π/2) z/(2δ)`` and
    ``R_D → z²/(3δ²)``; these tend to π/4 and π/6 as δ → 0 (0.78555 / 0.52382
    at ε = 1e-5, δ = 1e-2). Spec grid: ε = logspace(-6, 1, 141) here.
    Columns: ``delta, epsilon, amplitude_ratio, power_ratio,
    amplitude_ratio_limit, power_ratio_limit, amplitude_ratio_limit_small_delta,
    power_ratio_limit_small_delta``.
    """
    epsilons = _log_grid(epsilons, log10_epsilon_range, n_epsilon)
    z = special.ndtri((1.0 + delta) / 2.0)
    r = _ratios(epsilons, np.full_like(epsilons, delta), 1.0)
    return pd.DataFrame(
        {
            "delta": delta,
            "epsilon": epsilons,
            "amplitude_ratio": r["amplitude_ratio"],
            "power_ratio": r["power_ratio"],
            "amplitude_ratio_limit": np.sqrt(np.pi / 2.0) * z / (2.0 * delta),
            "power_ratio_limit": z**2 / (3.0 * delta**2),
            "amplitude_ratio_limit_small_delta": np.pi / 4.0,
            "power_ratio_limit_small_delta": np.pi / 6.0,
        }
    )


# --------------------------------------------------------------------------- E8 library cross-check


def _library_sigma_functions():
    """``(library, function, quantity, callable(ε, δ) -> value)`` for every cross-check; callables may raise."""

    def dp_accounting_sigma(eps, dlt):
        from dp_accounting import gaussian_mechanism

        return gaussian_mechanism.get_sigma_gaussian(eps, dlt, tol=1e-12)

    def dp_accounting_pld(eps, dlt):
        from dp_accounting.pld import accountant, common

        return accountant.get_smallest_gaussian_noise(
            common.DifferentialPrivacyParameters(eps, dlt), num_queries=1, sensitivity=1.0
        )

    def autodp_sigma(eps, dlt):
        import autodp.rdp_acct  # noqa: F401  (0.2.3.1 has a circular import; this order resolves it)
        from autodp import privacy_calibrator

        return privacy_calibrator.ana_gaussian_mech(eps, dlt, tol=1e-12)["sigma"]

    def diffprivlib_sigma(eps, dlt):
        from diffprivlib.mechanisms import GaussianAnalytic

        return GaussianAnalytic(epsilon=eps, delta=dlt, sensitivity=1.0)._scale

    def diffprivlib_bound(eps, dlt):
        from diffprivlib.mechanisms import LaplaceBoundedNoise

        mechanism = LaplaceBoundedNoise(epsilon=eps, delta=dlt, sensitivity=1.0, random_state=np.random.RandomState(0))
        mechanism.randomise(0.0)
        return mechanism._noise_bound

    def opendp_delta(eps, dlt):
        import opendp.prelude as dp

        dp.enable_features("contrib")
        sigma = float(add.analytic_gaussian_sigma(eps, dlt))
        gaussian = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma)
        return dp.c.make_zCDP_to_approxDP(gaussian).map(1.0).delta(eps)

    return [
        ("dp-accounting", "gaussian_mechanism.get_sigma_gaussian", "analytic_gaussian_sigma", dp_accounting_sigma),
        ("dp-accounting", "pld.accountant.get_smallest_gaussian_noise", "analytic_gaussian_sigma", dp_accounting_pld),
        ("autodp", "privacy_calibrator.ana_gaussian_mech", "analytic_gaussian_sigma", autodp_sigma),
        ("diffprivlib", "mechanisms.GaussianAnalytic._scale", "analytic_gaussian_sigma", diffprivlib_sigma),
        ("diffprivlib", "mechanisms.LaplaceBoundedNoise._noise_bound", "truncated_laplace_bound", diffprivlib_bound),
        (
            "opendp",
            "make_zCDP_to_approxDP(make_gaussian).map(1).delta",
            "delta_at_analytic_gaussian_sigma",
            opendp_delta,
        ),
    ]


def library_cross_check(points=LIBRARY_POINTS) -> pd.DataFrame:
    """E8: our σ_aG and A against dp-accounting, autodp, diffprivlib; OpenDP's conservative δ at σ_aG.

    Libraries are imported lazily; a missing library (or a failing call) gives
    ``library_value = relative_difference = NaN`` and a ``data_status`` saying why, so the claims
    that read the row are ``missing``. Spec agreement: dp-accounting
    ≤ 2e-13 (PLD search: ≥ ours, +2e-11…+1e-7); autodp ≤ 4e-8 for δ ≥ 1e-6, up
    to 3.5e-5 at δ = 1e-10; diffprivlib ≤ 5e-9 but -3.6e-5 at (10, 1e-10), A to
    1e-15; OpenDP δ is 3.7–4.4 × δ (one-sided, must be ≥ δ).
    Columns: ``epsilon, delta, library, function, quantity, ours, library_value,
    relative_difference`` (``library_value/ours - 1``; for OpenDP ``ours`` is δ).
    """
    rows = []
    for library, function, quantity, call in _library_sigma_functions():
        for eps, dlt in points:
            if quantity == "analytic_gaussian_sigma":
                ours = float(add.analytic_gaussian_sigma(eps, dlt))
            elif quantity == "truncated_laplace_bound":
                ours = float(add.truncated_laplace_bound(eps, dlt))
            else:
                ours = float(dlt)
            status = ""
            try:
                value = float(call(eps, dlt))
            except ImportError as error:
                value, status = np.nan, f"missing: {library} is not installed ({error})"
            except Exception as error:  # noqa: BLE001 — a failing optional library is reported, not fatal
                value, status = np.nan, f"missing: {library} raised {type(error).__name__}: {error}"
            rows.append(
                {
                    "epsilon": eps,
                    "delta": dlt,
                    "library": library,
                    "function": function,
                    "quantity": quantity,
                    "ours": ours,
                    "library_value": value,
                    "relative_difference": value / ours - 1.0,
                    DATA_STATUS_COLUMN: status,
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- E8b calibration audit at high precision


def gaussian_delta_high_precision(sigma: float, epsilon: float, digits: int = 50) -> float:
    """The exact δ(σ) of the Gaussian mechanism with sensitivity 1 at ``epsilon`` (Balle & Wang
    2018, Thm 8): ``Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)``, evaluated with ``digits`` decimal
    digits (mpmath), so the cancellation at small δ and large ε cannot fake a verdict."""
    import mpmath

    with mpmath.workdps(digits):
        s, e = mpmath.mpf(sigma), mpmath.mpf(epsilon)
        value = mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)
        return float(value)


def _analytic_gaussian_calibrations():
    """``(library, function, callable(ε, δ) -> σ)`` of every analytic-Gaussian calibration audited."""
    functions = {
        f: call for _, f, quantity, call in _library_sigma_functions() if quantity == "analytic_gaussian_sigma"
    }
    return [
        ("dpreplication", "mechanisms.analytic_gaussian_sigma", lambda e, d: float(add.analytic_gaussian_sigma(e, d))),
        ("dp-accounting", "gaussian_mechanism.get_sigma_gaussian", functions["gaussian_mechanism.get_sigma_gaussian"]),
        ("autodp", "privacy_calibrator.ana_gaussian_mech", functions["privacy_calibrator.ana_gaussian_mech"]),
        ("diffprivlib", "mechanisms.GaussianAnalytic._scale", functions["mechanisms.GaussianAnalytic._scale"]),
    ]


def calibration_audit(
    rng: np.random.Generator,
    n_points: int = 300,
    log10_epsilon_range=(-2.0, 1.30103),
    log10_delta_range=(-12.0, -2.0),
    tolerance: float = 1e-6,
) -> pd.DataFrame:
    """E8b: each library's analytic-Gaussian σ at ``n_points`` random (ε, δ) (log-uniform), judged by
    the exact δ(σ) at 50 digits: ``relative_excess = δ(σ)/δ − 1 > tolerance`` means the library
    under-noises (its σ is not (ε, δ)-DP). Columns: ``point, epsilon, delta, library, function,
    sigma, true_delta, relative_excess, under_noises, data_status`` (a library that is absent or
    raises gives NaN and says why)."""
    epsilons = 10.0 ** rng.uniform(*log10_epsilon_range, n_points)
    deltas = 10.0 ** rng.uniform(*log10_delta_range, n_points)
    rows = []
    for library, function, call in _analytic_gaussian_calibrations():
        for point, (eps, dlt) in enumerate(zip(epsilons, deltas)):
            status, sigma = "", np.nan
            try:
                sigma = float(call(eps, dlt))
            except ImportError as error:
                status = f"missing: {library} is not installed ({error})"
            except Exception as error:  # noqa: BLE001 — a failing library is reported, not fatal
                status = f"missing: {library} raised {type(error).__name__}: {error}"
            true_delta = gaussian_delta_high_precision(sigma, eps) if np.isfinite(sigma) else np.nan
            excess = true_delta / dlt - 1.0
            rows.append(
                {
                    "point": point,
                    "epsilon": eps,
                    "delta": dlt,
                    "library": library,
                    "function": function,
                    "sigma": sigma,
                    "true_delta": true_delta,
                    "relative_excess": excess,
                    "under_noises": bool(excess > tolerance),
                    DATA_STATUS_COLUMN: status,
                }
            )
    return pd.DataFrame(rows)


def calibration_audit_summary(audit: pd.DataFrame) -> pd.DataFrame:
    """Per library: pairs computed, how many under-noise, the largest relative excess of δ and its
    (ε, δ); ``data_status`` says why pairs are missing."""
    rows = []
    for (library, function), group in audit.groupby(["library", "function"], sort=False):
        computed = group[group.relative_excess.notna()]
        worst = computed.loc[computed.relative_excess.idxmax()] if len(computed) else None
        rows.append(
            {
                "library": library,
                "function": function,
                "pairs": len(group),
                "computed": len(computed),
                "under_noising_pairs": int(computed.under_noises.sum()),
                "max_relative_excess": float(worst.relative_excess) if worst is not None else np.nan,
                "worst_epsilon": float(worst.epsilon) if worst is not None else np.nan,
                "worst_delta": float(worst.delta) if worst is not None else np.nan,
                "min_relative_excess": float(computed.relative_excess.min()) if len(computed) else np.nan,
                DATA_STATUS_COLUMN: ""
                if len(computed) == len(group)
                else "; ".join(sorted(set(group[DATA_STATUS_COLUMN]) - {""}))[:300],
            }
        )
    return pd.DataFrame(rows)
