"""Truncated Laplacian mechanism (Geng, Ding, Guo & Kumar, AISTATS 2020): the paper's figures and tables.

One function per figure or table of the replication spec (§8 figures 1–3, the ratio table, the
checkable facts, the canonical values; §9 extras E6 baselines and E7 small-ε limit), each returning
a tidy ``pandas.DataFrame`` with one row per plotted point. The mathematics lives in
:mod:`dpreplication.mechanisms.truncated_laplace` and :mod:`dpreplication.mechanisms.additive` (the
mechanisms), :mod:`dpreplication.mechanisms.bounds` (V*, D* bounds) and
:mod:`dpreplication.mechanisms.noise_comparison` (R_V, R_D); this module only builds grids and
tables. The other extras (E1–E5, E8) are in :mod:`dpreplication.replications.truncated_laplace.bounds`
and :mod:`dpreplication.replications.truncated_laplace.audits`. Sensitivity ``Δ = 1`` unless
passed; the ratios are Δ-free. Defaults are the spec's values; the workflow's quick profile passes
smaller grids.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms import bounds
from dpreplication.mechanisms import noise_comparison as nc
from dpreplication.mechanisms import truncated_laplace as tl_mechanism

PAPER = "truncated_laplace"


MECHANISM_LABELS = {
    "truncated_laplace": "Truncated Laplacian",
    "laplace": "Laplace (ε-DP)",
    "analytic_gaussian": "Analytic Gaussian",
    "classic_gaussian": "Classic Gaussian",
}


def product_grid(epsilons, deltas) -> tuple[np.ndarray, np.ndarray]:
    """Flattened product grid, δ-major (one block of ε values per δ)."""
    delta_grid, epsilon_grid = np.meshgrid(np.asarray(deltas, float), np.asarray(epsilons, float), indexing="ij")
    return epsilon_grid.ravel(), delta_grid.ravel()


def log_grid(values, log10_range, n_points: int) -> np.ndarray:
    """``values`` as floats, or ``n_points`` log-spaced values over ``10**log10_range`` when ``values`` is None."""
    return np.logspace(*log10_range, int(n_points)) if values is None else np.asarray(values, float)


def figure1_density(*, epsilon: float, delta: float, sensitivity: float, n_points: int, extent: float) -> pd.DataFrame:
    """Fig. 1: densities on ``x ∈ [-extent·A, extent·A]`` (spec: Δ = 1, ε = 1, δ = 0.05, extent 1.25).

    Truncated Laplacian (A = 2.900477, B = 0.529099), Laplace(Δ/ε) and
    ``N(0, σ_aG²)`` (σ_aG = 1.332778). The grid also holds ``±A`` and the next
    float outward so that the jump at the support edge is drawn vertically.
    Columns: ``mechanism, label, x, density``.
    """
    cal = tl_mechanism.calibrate_truncated_laplace(epsilon, delta, sensitivity)
    bound, scale = float(cal.bound), float(cal.scale)
    edges = [bound, np.nextafter(bound, np.inf)]
    x = np.unique(np.concatenate([np.linspace(-extent * bound, extent * bound, n_points), edges, np.negative(edges)]))
    sigma = float(add.analytic_gaussian_sigma(epsilon, delta, sensitivity))
    densities = {
        "truncated_laplace": tl_mechanism.truncated_laplace_pdf(x, scale, bound),
        "laplace": add.laplace_pdf(x, scale),
        "analytic_gaussian": add.gaussian_pdf(x, sigma),
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
    cal = tl_mechanism.calibrate_truncated_laplace(epsilon, delta, sensitivity)
    scale, bound = float(cal.scale), float(cal.bound)
    region_mass = float(tl_mechanism.truncated_laplace_tail(bound - sensitivity, scale, bound))
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


def _ratio_curves(quantity: str, epsilons, deltas, sensitivity: float) -> pd.DataFrame:
    """Truncated-Laplacian over analytic-Gaussian ``quantity`` ("amplitude" or "power") on the ε × δ grid."""
    eps, dlt = product_grid(epsilons, deltas)
    r = nc.noise_costs(eps, dlt, sensitivity)
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
    *, epsilons=None, deltas, sensitivity: float = 1.0, log10_epsilon_range, n_epsilon: int
) -> pd.DataFrame:
    """Fig. 2(a): ``R_V = V_up/(σ_aG √(2/π))`` vs ε, one curve per δ.

    Spec grid: ε = logspace(-2, 1, 301) (used when ``epsilons`` is None),
    δ ∈ {1e-1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10}.
    Columns: ``delta, epsilon, truncated_laplace_amplitude, analytic_gaussian_sigma,
    analytic_gaussian_amplitude, amplitude_ratio``.
    """
    return _ratio_curves("amplitude", log_grid(epsilons, log10_epsilon_range, n_epsilon), deltas, sensitivity)


def figure3_power_ratio(
    *, epsilons=None, deltas, sensitivity: float = 1.0, log10_epsilon_range, n_epsilon: int
) -> pd.DataFrame:
    """Fig. 3(a): ``R_D = D_up/σ_aG²`` vs ε, one curve per δ (same grid as Fig. 2(a)).

    Columns: ``delta, epsilon, truncated_laplace_power, analytic_gaussian_sigma,
    analytic_gaussian_power, power_ratio``.
    """
    return _ratio_curves("power", log_grid(epsilons, log10_epsilon_range, n_epsilon), deltas, sensitivity)


def _heatmap(log10_epsilon_range, n_epsilon, log10_delta_range, n_delta, column) -> pd.DataFrame:
    log_eps = np.linspace(*log10_epsilon_range, n_epsilon)
    log_delta = np.linspace(*log10_delta_range, n_delta)
    eps, dlt = product_grid(10.0**log_eps, 10.0**log_delta)
    r = nc.noise_costs(eps, dlt, 1.0)
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
    *, log10_epsilon_range, n_epsilon: int, log10_delta_range, n_delta: int
) -> pd.DataFrame:
    """Fig. 2(b): ``R_V`` on a log10 ε × log10 δ grid (spec: [-3, 1] × 200, [-12, -1] × 150; ≈ 0.3 s).

    Columns: ``log10_delta, log10_epsilon, delta, epsilon, amplitude_ratio``.
    """
    return _heatmap(log10_epsilon_range, n_epsilon, log10_delta_range, n_delta, "amplitude_ratio")


def figure3_power_ratio_heatmap(
    *, log10_epsilon_range, n_epsilon: int, log10_delta_range, n_delta: int
) -> pd.DataFrame:
    """Fig. 3(b): ``R_D`` on the Fig. 2(b) grid.

    Columns: ``log10_delta, log10_epsilon, delta, epsilon, power_ratio``.
    """
    return _heatmap(log10_epsilon_range, n_epsilon, log10_delta_range, n_delta, "power_ratio")


def ratio_table(*, epsilons, deltas) -> pd.DataFrame:
    """Recompute the spec §8 table of ``R_V`` and ``R_D`` (ε ∈ {0.01, …, 10} × δ ∈ {1e-2, 1e-4, 1e-6, 1e-10}).

    Columns: ``delta, epsilon, amplitude_ratio, power_ratio``.
    """
    eps, dlt = product_grid(epsilons, deltas)
    r = nc.noise_costs(eps, dlt, 1.0)
    return pd.DataFrame(
        {"delta": dlt, "epsilon": eps, "amplitude_ratio": r["amplitude_ratio"], "power_ratio": r["power_ratio"]}
    )


def ratio_facts(
    *, log10_epsilon_range, log10_delta_range, n_epsilon: int, n_delta: int, counter_example_delta: float
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
    eps, dlt = product_grid(10.0**log_eps, deltas)
    r = nc.noise_costs(eps, dlt, 1.0)
    for quantity in ("amplitude", "power"):
        values = r[f"{quantity}_ratio"]
        top_delta = float(dlt[np.argmax(values)])
        arg_eps, top = nc.max_ratio_over_epsilon(quantity, top_delta, log10_epsilon_range, n_epsilon)
        rows.append(("sup_ratio", quantity, arg_eps, top_delta, top))
        low = int(np.argmin(values))
        rows.append(("inf_ratio", quantity, float(eps[low]), float(dlt[low]), float(values[low])))
        arg_eps, top = nc.max_ratio_over_epsilon(quantity, 1e-2, log10_epsilon_range, n_epsilon)
        rows.append(("peak_ratio", quantity, arg_eps, 1e-2, top))
        arg_eps, top = nc.max_ratio_over_epsilon(quantity, counter_example_delta, log10_epsilon_range, n_epsilon)
        rows.append(("peak_ratio", quantity, arg_eps, counter_example_delta, top))
        delta_even, eps_even = nc.break_even_delta(quantity, log10_epsilon_range)
        rows.append(("break_even_delta", quantity, eps_even, delta_even, delta_even))

        curve_eps = np.logspace(-2, 1, 301)
        ratio = nc.RATIOS[quantity]
        decreasing = all(np.all(np.diff(ratio(curve_eps, d)) < 0) for d in (1e-4, 1e-6, 1e-8, 1e-10))
        rows.append(("decreasing_in_epsilon_for_delta_le_1e-4", quantity, np.nan, 1e-4, float(decreasing)))
        curve_delta = np.logspace(-12, -1, 111)
        for e in (0.01, 0.1, 1.0, 10.0):
            increasing = bool(np.all(np.diff(ratio(e, curve_delta)) > 0))
            rows.append(("increasing_in_delta", quantity, e, np.nan, float(increasing)))

    for e, d in ((1.0, 1e-10), (1.0, 1e-6), (0.01, 0.1)):
        saving = add.analytic_gaussian_sigma(e, d) / add.classic_gaussian_sigma(e, d)
        rows.append(("analytic_over_classic_sigma", "sigma", e, d, float(saving)))
    eps, dlt = product_grid(np.logspace(-2, 0, 41), np.logspace(-10, -1, 37))
    saving = add.analytic_gaussian_sigma(eps, dlt) / add.classic_gaussian_sigma(eps, dlt)
    rows.append(("analytic_over_classic_sigma_min", "sigma", np.nan, np.nan, float(saving.min())))
    rows.append(("analytic_over_classic_sigma_max", "sigma", np.nan, np.nan, float(saving.max())))
    return pd.DataFrame(rows, columns=["fact", "quantity", "epsilon", "delta", "value"])


def canonical_values(*, points, sensitivity: float = 1.0) -> pd.DataFrame:
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
    r = nc.noise_costs(eps, dlt, sensitivity)
    classic = np.atleast_1d(add.classic_gaussian_sigma(eps, dlt, sensitivity))
    return pd.DataFrame(
        {
            "epsilon": eps,
            "delta": dlt,
            "bound": np.atleast_1d(tl_mechanism.truncated_laplace_bound(eps, dlt, sensitivity)),
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


def small_epsilon_limit(*, epsilons=None, delta: float, log10_epsilon_range, n_epsilon: int) -> pd.DataFrame:
    """E7: ``R_V``, ``R_D`` vs ε down to 1e-6 at δ = 1e-2 and their ε → 0 limits.

    As ε → 0 (δ fixed) ``V_up → Δ/(4δ)``, ``D_up → Δ²/(12δ²)`` and
    ``σ_aG → Δ/(2z)``, ``z = Φ⁻¹((1+δ)/2)``, so ``R_V → √(π/2) z/(2δ)`` and
    ``R_D → z²/(3δ²)``; these tend to π/4 and π/6 as δ → 0 (0.78555 / 0.52382
    at ε = 1e-5, δ = 1e-2). Spec grid: ε = logspace(-6, 1, 141) here.
    Columns: ``delta, epsilon, amplitude_ratio, power_ratio,
    amplitude_ratio_limit, power_ratio_limit, amplitude_ratio_limit_small_delta,
    power_ratio_limit_small_delta``.
    """
    epsilons = log_grid(epsilons, log10_epsilon_range, n_epsilon)
    r = nc.noise_costs(epsilons, np.full_like(epsilons, delta), 1.0)
    return pd.DataFrame(
        {
            "delta": delta,
            "epsilon": epsilons,
            "amplitude_ratio": r["amplitude_ratio"],
            "power_ratio": r["power_ratio"],
            "amplitude_ratio_limit": nc.amplitude_ratio_epsilon_limit(delta),
            "power_ratio_limit": nc.power_ratio_epsilon_limit(delta),
            "amplitude_ratio_limit_small_delta": nc.AMPLITUDE_RATIO_DOUBLE_LIMIT,
            "power_ratio_limit_small_delta": nc.POWER_RATIO_DOUBLE_LIMIT,
        }
    )


def baseline_table(*, epsilons, deltas) -> pd.DataFrame:
    """E6: amplitude and power of TL, Laplace, classic Gaussian (ε < 1 only) and analytic Gaussian.

    Spec grid: ε ∈ {0.01, 0.1, 0.5, 1, 2, 5, 10} × δ ∈ {1e-2, 1e-4, 1e-6, 1e-10}.
    ``parameter`` is A for TL, the scale Δ/ε for Laplace, σ for the Gaussians.
    Columns: ``epsilon, delta, mechanism, label, parameter, amplitude, power,
    truncated_laplace_amplitude_ratio, truncated_laplace_power_ratio``.
    """
    eps, dlt = product_grid(epsilons, deltas)
    tl_amp, tl_pow = tl_mechanism.truncated_laplace_amplitude(eps, dlt), tl_mechanism.truncated_laplace_power(eps, dlt)
    sigma_ag = add.analytic_gaussian_sigma(eps, dlt)
    sigma_cl = add.classic_gaussian_sigma(eps, dlt)
    blocks = {
        "truncated_laplace": (tl_mechanism.truncated_laplace_bound(eps, dlt), tl_amp, tl_pow, np.ones_like(eps, bool)),
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
