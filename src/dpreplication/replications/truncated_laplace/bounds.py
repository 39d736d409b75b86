"""Truncated Laplacian (Geng et al.): the optimal-noise bounds, spec §9 extras E1 and E2.

E1: the reconstructed lower bounds against the truncated Laplacian's cost (``V_low/V_up``,
``D_low/D_up``) and where their curves bend; E2: the discretised LP optimum between them. The
bounds live in :mod:`dpreplication.mechanisms.bounds`, the LP in
:mod:`dpreplication.optimisation.noise_lp`; this module builds the grids and tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.mechanisms import bounds
from dpreplication.optimisation.noise_lp import optimal_noise_lower_bound, richardson_extrapolation
from dpreplication.replications.truncated_laplace.figures import log_grid, product_grid


def bound_kinks(*, delta: float, log10_epsilon_range, n_fine: int) -> pd.DataFrame:
    """Where the reconstructed-bound curves bend, and why.

    The lower bounds depend on ε through ``m = ⌊n⌋``, ``n = (1/ε) ln(1 + (e^ε − 1)/(2δ))``, so they
    are not smooth where ``n`` crosses an integer. The kinks are detected on a fine log grid as the
    outliers of the second difference of ``log(V_low/V_up)`` and ``log(D_low/D_up)`` in ``log ε``
    (above 100× its median), and each is matched to the nearest crossing, found by root finding.
    Columns: ``delta, quantity, floor_n_before, floor_n_after, crossing_epsilon, kink_epsilon,
    relative_distance, relative_grid_step, unexplained_kinks`` (one row per crossing;
    ``kink_epsilon`` NaN if none was detected there) and one row per kink that no crossing explains
    (``crossing_epsilon`` NaN); ``unexplained_kinks`` counts the latter per quantity.
    """
    log_lo, log_hi = log10_epsilon_range
    eps = np.logspace(log_lo, log_hi, int(n_fine))
    dlt = np.full_like(eps, delta)
    crossings = bounds.floor_n_crossings(delta, (eps[0], eps[-1]))
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


def bound_gap(*, epsilons=None, deltas, log10_epsilon_range, n_epsilon: int) -> pd.DataFrame:
    """E1: ``V_low/V_up`` and ``D_low/D_up`` vs ε (spec: log grid on [1e-3, 10], Fig. 2 δ grid; 201 ε points here).

    With the δ → 0 limit curves ``ε/(e^ε - 1)`` and ``ε²(e^ε + 1)/(2(e^ε - 1)²)``
    (Thms 6.1, 7.1). Lower bounds are the **reconstructed** eqs. (11*), (12*).
    Columns: ``delta, epsilon, amplitude_upper, amplitude_lower_reconstructed,
    amplitude_bound_ratio, amplitude_bound_ratio_limit, power_upper,
    power_lower_reconstructed, power_bound_ratio, power_bound_ratio_limit``.
    """
    eps, dlt = product_grid(log_grid(epsilons, log10_epsilon_range, n_epsilon), deltas)
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


def lp_optimum(*, epsilons, delta: float, resolutions, costs, backend: str, solver: str) -> pd.DataFrame:
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
