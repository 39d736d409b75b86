"""DaRRM (Jiang, Zhang & Joshi, TMLR 2024): the analytic figures.

Three tables cover the figures of the replication spec §2, each a tidy long-format DataFrame
with one row per plotted point (each figure's parameters are its config section; its rule adds
what defines the figure, e.g. ``Δ = 0`` for the pure-DP ones):

* :func:`gamma_shapes` (F2, F5, F7, F9 panel 1) — columns :data:`SHAPE_COLUMNS`;
* :func:`ensemble_errors` (F3, F6, F8, F9 panels 2–4) — columns :data:`ERROR_COLUMNS`;
* :func:`figure4_feasible_region` (F4) — columns :data:`REGION_COLUMNS`;
* :func:`lp_diagnostics` — LP sizes, times and repair per setting (spec §4).

The spec's verified numbers are :mod:`dpreplication.replications.darrm.verified`.

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
from dpreplication.mechanisms import feasible_region, majority_utility
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
OPTIMISATION_PRIORS = {"opt-U": majority_utility.UNIFORM_PRIOR, "opt-P": majority_utility.POLARIZED_PRIOR}
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

    Parameters
    ----------
    series : str
        ``opt``, ``opt-U``, ``opt-P``, ``Sub``, ``DSub`` or ``const``.
    prior_means : dict or None
        Overrides the objective's q̄ of ``opt-U`` / ``opt-P`` (default: the folded means
        0.75 / 0.85 of :data:`OPTIMISATION_PRIORS`, both [I]).
    """
    if series == "opt":
        if mean_probability is None:
            raise ValueError("series 'opt' needs the objective's mean_probability")
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
    *,
    figure: str,
    K: int,
    ms,
    epsilon: float,
    Delta: float,
    series,
    composition: str,
    mean_probability: float | None,
    prior_means: dict | None,
    solver: str,
) -> pd.DataFrame:
    """γ(l), ``l = 0..K``, of every series for every ``m``, labelled ``figure`` (F2, F5, F7, F9).

    ``δ = composed_delta(m, Δ, composition)``; ``Δ = 0`` is pure DP.

    Parameters
    ----------
    mean_probability : float or None
        q̄ of the ``opt`` objective.
    prior_means : dict or None
        q̄ of ``opt-U`` / ``opt-P`` (None: 0.75 / 0.85).
    """
    rows = []
    for m in ms:
        delta = mj.composed_delta(m, Delta, composition)
        for name in series:
            gamma = series_gamma(name, K, m, epsilon, Delta, delta, composition, mean_probability, solver, prior_means)
            rows += [(figure, K, m, epsilon, Delta, delta, name, l, g) for l, g in enumerate(gamma)]
    return pd.DataFrame(rows, columns=SHAPE_COLUMNS)


def ensemble_errors(
    shapes: pd.DataFrame,
    *,
    figure: str,
    actual_priors,
    n_draws: int,
    n_repeats: int,
    seed: int,
    zero_below: float,
) -> pd.DataFrame:
    """Monte-Carlo ``E(DaRRM_γ)`` (spec §1.3) for every γ in a shape table and every actual prior.

    Rows are labelled ``figure`` (F3, F6, F8 of the F2, F5, F7 shapes under ``T_U``; F9 under
    several priors). Mean ± std over ``n_repeats`` estimates of ``n_draws`` vectors each; means
    below ``zero_below`` are reported as 0 (the paper zeroes values below 1e-5 [C]). On the rows
    of an optimised series (``opt*``), ``opt_minus_best_baseline`` is its mean minus the smallest
    mean of the baselines (Sub, DSub, const) in the same setting and actual prior (≤ 0 when γ_opt
    is at least as good as every baseline); NaN on baseline rows.
    """
    keys = ["K", "m", "epsilon", "Delta", "delta", "series"]
    rows = []
    for K, table in shapes.groupby("K", sort=False):
        groups = list(table.groupby(keys, sort=False))
        gammas = np.stack([g.sort_values("l")["gamma"].to_numpy() for _, g in groups])
        for prior_name in actual_priors:
            prior = majority_utility.PRIORS[prior_name]
            rng = seeding.generator(seed, PAPER, figure, int(K), prior_name)
            mean, std = majority_utility.monte_carlo_error(gammas, int(K), prior, n_draws, n_repeats, rng, zero_below)
            note = ZERO_PRIOR_NOTE if prior is majority_utility.HALF_PRIOR else ""
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
    """One row per LP: size, timings, scaling repair and the verifier's violation (spec §4, §6).

    Size: rows after presolve, cols, nnz; timings: build/solve seconds; the violation is the exact
    verifier's, of the repaired γ.
    """
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

    The wall-clock columns :data:`LP_TIMING_COLUMNS` are included; drop them before writing a
    table that is compared between runs.

    Parameters
    ----------
    cases : iterable of dict
        Each with ``setting, K, ms, epsilon`` and optionally ``Delta, composition,
        mean_probability``.
    """
    return pd.concat([lp_diagnostics(solver=solver, **case) for case in cases], ignore_index=True)
