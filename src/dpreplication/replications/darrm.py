"""DaRRM (Jiang, Zhang & Joshi, TMLR 2024): the analytic figures.

One function per figure of the replication spec §2, each returning a tidy long-format
DataFrame with one row per plotted point:

* γ shapes (F2, F5, F7, F9 panel 1) — columns :data:`SHAPE_COLUMNS`;
* errors ``E(DaRRM_γ)`` (F3, F6, F8, F9 panels 2–4) — columns :data:`ERROR_COLUMNS`;
* the feasible region (F4) — columns :data:`REGION_COLUMNS`;
* :func:`lp_diagnostics` — LP sizes, times and repair per setting (spec §4).

The spec's verified numbers are :mod:`dpreplication.replications.darrm_verified`.

Series (spec §2): ``opt`` (γ_opt, the LP of :mod:`dpreplication.optimisation.gamma_lp`),
``Sub`` (γ_Sub), ``DSub`` (γ_DSub), ``const`` (γ_const, randomized response); F9 uses
``opt-U`` / ``opt-P`` (γ_opt with the ``T_U`` / ``T_P`` objective). Monte-Carlo errors draw
from ``seeding.generator(seed, PAPER, figure, K, actual_prior)``: every series and every m of
one figure shares the same draws (common random numbers).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.accounting import privacy_verifier as verifier
from dpreplication.mechanisms import feasible_region
from dpreplication.mechanisms import majority as mj
from dpreplication.optimisation.gamma_lp import optimise_gamma, optimise_gamma_cached

PAPER = "darrm"
SHAPE_COLUMNS = ["figure", "K", "m", "epsilon", "Delta", "delta", "series", "l", "gamma"]
ERROR_COLUMNS = [
    "figure",
    "K",
    "m",
    "epsilon",
    "Delta",
    "delta",
    "series",
    "actual_prior",
    "error_mean",
    "error_std",
    "opt_minus_best_baseline",
    "n_draws",
    "n_repeats",
    "note",
]
REGION_COLUMNS = ["figure", "epsilon", "Delta", "element", "label", "description", "order", "p", "p_prime"]
LP_TIMING_COLUMNS = ["build_seconds", "solve_seconds"]
"""Wall-clock columns of :func:`lp_diagnostics`: not deterministic, so never in a compared table."""
OPTIMISATION_PRIORS = {"opt-U": mj.UNIFORM_PRIOR, "opt-P": mj.POLARIZED_PRIOR}
ZERO_PRIOR_NOTE = "p_i = 0.5 gives alpha_l = alpha_{K-l}, so E = 0 for every gamma (spec F9 caveat)"


def series_gamma(
    series: str,
    K: int,
    m: int,
    epsilon: float,
    Delta: float = 0.0,
    delta: float = 0.0,
    composition: str = "general",
    mean_probability: float = 0.75,
    solver: str = "highs",
    prior_means: dict | None = None,
) -> np.ndarray:
    """γ(0..K) of one named series at budget ``(mε, δ)``; ``opt*`` via the (memoised) LP.

    ``prior_means`` overrides the objective's q̄ of ``opt-U`` / ``opt-P`` (default: the folded
    means 0.75 / 0.85 of :data:`OPTIMISATION_PRIORS`, both [I]).
    """
    if series == "opt":
        return np.array(optimise_gamma_cached(K, m, epsilon, Delta, delta, mean_probability, solver).gamma)
    if series in OPTIMISATION_PRIORS:
        q = float((prior_means or {}).get(series, OPTIMISATION_PRIORS[series].folded_mean))
        return np.array(optimise_gamma_cached(K, m, epsilon, Delta, delta, q, solver).gamma)
    if series == "Sub":
        return mj.gamma_subsampling(K, m)
    if series == "DSub":
        return mj.gamma_double_subsampling(K, m)
    if series == "const":
        return mj.gamma_constant(K, m, epsilon, Delta, delta, composition)
    raise ValueError(f"unknown series {series!r}: use opt, opt-U, opt-P, Sub, DSub or const")


def gamma_shapes(
    figure: str,
    K: int,
    ms,
    epsilon: float,
    Delta: float,
    series,
    composition: str = "general",
    mean_probability: float = 0.75,
    solver: str = "highs",
    prior_means: dict | None = None,
) -> pd.DataFrame:
    """γ(l), ``l = 0..K``, for every ``m`` and series; ``δ = composed_delta(m, Δ, composition)``."""
    rows = []
    for m in ms:
        delta = mj.composed_delta(m, Delta, composition)
        for name in series:
            gamma = series_gamma(name, K, m, epsilon, Delta, delta, composition, mean_probability, solver, prior_means)
            rows += [(figure, K, m, epsilon, Delta, delta, name, l, g) for l, g in enumerate(gamma)]
    return pd.DataFrame(rows, columns=SHAPE_COLUMNS)


def ensemble_errors(
    shapes: pd.DataFrame,
    figure: str,
    actual_priors,
    n_draws: int,
    n_repeats: int,
    seed: int,
    zero_below: float = 1e-5,
) -> pd.DataFrame:
    """Monte-Carlo ``E(DaRRM_γ)`` (spec §1.3) for every γ in a shape table and every actual prior.

    Mean ± std over ``n_repeats`` estimates of ``n_draws`` vectors each; means below
    ``zero_below`` are reported as 0 (the paper zeroes values below 1e-5 [C]). On the rows of
    an optimised series (``opt*``), ``opt_minus_best_baseline`` is its mean minus the smallest
    mean of the baselines (Sub, DSub, const) in the same setting and actual prior (≤ 0 when
    γ_opt is at least as good as every baseline); NaN on baseline rows.
    """
    keys = ["K", "m", "epsilon", "Delta", "delta", "series"]
    rows = []
    for K, table in shapes.groupby("K", sort=False):
        groups = list(table.groupby(keys, sort=False))
        gammas = np.stack([g.sort_values("l")["gamma"].to_numpy() for _, g in groups])
        for prior_name in actual_priors:
            prior = mj.PRIORS[prior_name]
            rng = seeding.generator(seed, PAPER, figure, int(K), prior_name)
            mean, std = mj.monte_carlo_error(gammas, int(K), prior, n_draws, n_repeats, rng, zero_below)
            note = ZERO_PRIOR_NOTE if prior is mj.HALF_PRIOR else ""
            rows += [
                (figure, *key, prior_name, mu, sd, np.nan, n_draws, n_repeats, note)
                for (key, _), mu, sd in zip(groups, mean, std)
            ]
    frame = pd.DataFrame(rows, columns=ERROR_COLUMNS)
    optimised = frame.series.str.startswith("opt")
    setting = keys[:-1] + ["actual_prior"]
    best = frame[~optimised].groupby(setting, sort=False).error_mean.min().rename("best_baseline")
    merged = frame[setting].merge(best, how="left", left_on=setting, right_index=True)
    frame.loc[optimised, "opt_minus_best_baseline"] = (frame.error_mean - merged.best_baseline.to_numpy())[optimised]
    return frame


# --------------------------------------------------------------------------- F2–F3


def figure2_gamma_shapes(
    *,
    K: int,
    ms,
    epsilon: float,
    Delta: float,
    series,
    composition: str,
    mean_probability: float,
    solver: str,
) -> pd.DataFrame:
    """F2 (main §6.1): γ shapes for K=11 mechanisms under approximate DP.

    Spec parameters: K=11, m∈{1,3,5,7,9,11}, ε=0.1, Δ=1e-5 [I, weak], δ=1−(1−Δ)^m [C]
    (``composition="general"``), prior T_U (q̄=0.75 [I]); DSub probably absent [U] (add it via
    ``series``). LP: 6 × 31,824 vertex multisets (about 1k rows after presolve), < 0.1 s.
    """
    return gamma_shapes("F2", K, ms, epsilon, Delta, series, composition, mean_probability, solver)


def figure3_errors(shapes: pd.DataFrame, *, n_draws: int, n_repeats: int, seed: int, zero_below: float) -> pd.DataFrame:
    """F3: ``E(DaRRM_γ)`` of the F2 noise functions (``shapes``: the F2 table), p ∼ U[0,1]^11,
    10⁴ draws × 10 repeats [C]."""
    return ensemble_errors(shapes, "F3", ("T_U",), n_draws, n_repeats, seed, zero_below)


# --------------------------------------------------------------------------- F4


def figure4_feasible_region(*, epsilon: float, Delta: float, n_points: int) -> pd.DataFrame:
    """F4 (App. B): the feasible region F of ``(p, p')`` and its four DP boundaries (a)–(d).

    Spec: ε-DP (Δ = 0), any ε; 0.5 for visibility [U]. Rows with ``element="region"`` are the
    vertices of F in counter-clockwise order (a closed polygon to shade); ``element="boundary"``
    rows sample each line ``p' = b(p)`` on ``n_points`` values of p, clipped to the unit square.
    """
    rows = []
    vertices = feasible_region.feasible_region_vertices(epsilon, Delta)
    centre = vertices.mean(axis=0)
    angles = np.arctan2(vertices[:, 1] - centre[1], vertices[:, 0] - centre[0])
    for order, i in enumerate(np.argsort(angles)):
        rows.append(("F4", epsilon, Delta, "region", "F", "feasible region (vertex)", order, *vertices[i]))
    p = np.linspace(0.0, 1.0, n_points)
    for label, (description, line) in feasible_region.feasible_region_boundaries(epsilon, Delta).items():
        q = line(p)
        inside = (q >= 0) & (q <= 1)
        rows += [
            ("F4", epsilon, Delta, "boundary", label, description, order, pp, qq)
            for order, (pp, qq) in enumerate(zip(p[inside], q[inside]))
        ]
    return pd.DataFrame(rows, columns=REGION_COLUMNS)


# --------------------------------------------------------------------------- F5–F8


def figure5_gamma_shapes(*, K: int, ms, epsilon: float, series, mean_probability: float, solver: str) -> pd.DataFrame:
    """F5 (App. D.1.1, Setting 1): γ shapes, K=11, pure DP (Δ=δ=0), 4 series.

    Spec: m∈{1,3,5,7,9,11}; ε=0.03 per the authors' script toggle [I] (0.1 also plausible).
    LP: 6 × 364 vertex multisets (≈100 rows after presolve), milliseconds.
    """
    return gamma_shapes("F5", K, ms, epsilon, 0.0, series, "general", mean_probability, solver)


def figure6_errors(shapes: pd.DataFrame, *, n_draws: int, n_repeats: int, seed: int, zero_below: float) -> pd.DataFrame:
    """F6: ``E(DaRRM_γ)`` of the F5 noise functions (``shapes``: the F5 table), p ∼ U[0,1]^11,
    10⁴ draws × 10 repeats."""
    return ensemble_errors(shapes, "F6", ("T_U",), n_draws, n_repeats, seed, zero_below)


def figure7_gamma_shapes(*, K: int, ms, epsilon: float, series, mean_probability: float, solver: str) -> pd.DataFrame:
    """F7 (App. D.1.1, Setting 2): γ shapes, K=101, pure DP (Δ=δ=0) [C], 4 series, 3×2 panels.

    Spec: m∈{10,20,30,40,60,80}, ε=0.1. LP: 51 × 182,104 vertex multisets (≈25–45k rows after
    presolve); about 0.4 s build + 0.2–1 s HiGHS per m.
    """
    return gamma_shapes("F7", K, ms, epsilon, 0.0, series, "general", mean_probability, solver)


def figure8_errors(shapes: pd.DataFrame, *, n_draws: int, n_repeats: int, seed: int, zero_below: float) -> pd.DataFrame:
    """F8: ``E(DaRRM_γ)`` of the F7 noise functions (``shapes``: the F7 table), p ∼ U[0,1]^101,
    10⁴ draws × 5 repeats [C]."""
    return ensemble_errors(shapes, "F8", ("T_U",), n_draws, n_repeats, seed, zero_below)


# --------------------------------------------------------------------------- F9


def figure9_prior_shapes(*, K: int, ms, epsilon: float, series, solver: str, prior_means: dict) -> pd.DataFrame:
    """F9 panel 1 (App. D.1.3): γ_opt optimised for T_U (q̄=0.75) and T_P (q̄=0.85) [I], with Sub
    and const; K=11, ε=0.1, Δ=0. Spec: m=5 [C], possibly also m=3 [I] (both by default).
    ``prior_means``: ``{"opt-U": q̄_U, "opt-P": q̄_P}`` overrides of the objectives' q̄."""
    return gamma_shapes("F9", K, ms, epsilon, 0.0, series, "general", 0.75, solver, prior_means)


def figure9_prior_errors(
    shapes: pd.DataFrame, *, actual_priors, n_draws: int, n_repeats: int, seed: int, zero_below: float
) -> pd.DataFrame:
    """F9 panels 2–4: ``E`` of the F9 γ (``shapes``: the F9 table) when the *actual* ``p_i`` ∼
    U[0,1], = 0.5, ∼ U[0,0.1].

    ``p_i = 0.5`` gives ``E = 0`` for every γ (rows carry a ``note``); ``U[0.4,0.6]`` is added as
    the non-degenerate stand-in the spec suggests.
    """
    return ensemble_errors(shapes, "F9", actual_priors, n_draws, n_repeats, seed, zero_below)


# --------------------------------------------------------------------------- LP bookkeeping


def lp_diagnostics(
    setting: str,
    K: int,
    ms,
    epsilon: float,
    Delta: float = 0.0,
    composition: str = "general",
    mean_probability: float = 0.75,
    solver: str = "highs",
) -> pd.DataFrame:
    """One row per LP: size (rows after presolve, cols, nnz), build/solve seconds, the scaling
    repair, and the exact verifier's violation of the repaired γ (spec §4, §6)."""
    rows = []
    for m in ms:
        delta = mj.composed_delta(m, Delta, composition)
        result = optimise_gamma(K, m, epsilon, Delta, delta, mean_probability, solver)
        report = verifier.verify_privacy(result.gamma, K, m, epsilon, Delta, delta)
        rows.append(
            {
                "setting": setting,
                **result.summary(),
                "verifier_violation": report.violation,
                "verifier_delta_excess": report.delta_excess,
            }
        )
    return pd.DataFrame(rows)


def lp_diagnostics_table(*, cases, solver: str) -> pd.DataFrame:
    """:func:`lp_diagnostics` for several settings, e.g. the LPs behind F2, F5 and F7.

    ``cases``: dicts with ``setting, K, ms, epsilon`` and optionally ``Delta, composition,
    mean_probability``. The wall-clock columns :data:`LP_TIMING_COLUMNS` are included; drop
    them before writing a table that is compared between runs.
    """
    return pd.concat([lp_diagnostics(solver=solver, **case) for case in cases], ignore_index=True)


# --------------------------------------------------------------------------- verified numbers
