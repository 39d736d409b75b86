"""DaRRM: the numbers behind the spec's verified tables (§5, §6) recomputed, one row per number.

This module recomputes the γ_opt values and ensemble errors of the spec's tables (K = 11 and
101, the two priors of F9); the lemma and theorem checks come from
:mod:`dpreplication.replications.darrm.lemmas`. The spec's values are claims of the registry
``workflow/claims/darrm.yaml``: nothing here states what a number should be. Monte-Carlo errors draw from
``seeding.generator(seed, "darrm", "verified", setting, actual_prior)``: every series and m of
one setting share the same draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.mechanisms import majority as mj
from dpreplication.mechanisms import majority_utility
from dpreplication.optimisation.gamma_lp import optimise_gamma_cached
from dpreplication.replications.darrm import lemmas
from dpreplication.replications.darrm.analytic import PAPER, series_gamma
from dpreplication.replications.darrm.lemmas import VERIFIED_COLUMNS, verified_row

__all__ = ["VERIFIED_COLUMNS", "verified_numbers"]


def monte_carlo_table(
    setting, K, ms, epsilon, series_list, n_draws, seed, actual="T_U", series_labels=None, solver="highs"
):
    """E of several series at several m from one shared set of draws."""
    series_labels = series_labels or series_list
    gammas, keys = [], []
    for m in ms:
        for name, label in zip(series_list, series_labels):
            gammas.append(series_gamma(name, K, m, epsilon, solver=solver))
            keys.append((m, label))
    rng = seeding.generator(seed, PAPER, "verified", setting, actual)
    mean, _ = majority_utility.monte_carlo_error(np.stack(gammas), K, majority_utility.PRIORS[actual], n_draws, 1, rng)
    return [
        verified_row(f"E[{label}] under {actual}", setting, f"K={K}, m={m}, eps={epsilon}, Delta=0", value, n_draws)
        for (m, label), value in zip(keys, mean)
    ]


ERROR_SERIES = ("opt", "DSub", "Sub", "const")
ERROR_LABELS = ("opt", "DSub", "Sub", "RR")


def k11_rows(draws, seed, solver="highs"):
    """γ_opt, LP objective and errors at K=11 (ε=0.1 and 0.03, Δ=0; ε=0.1, Δ=1e-5)."""
    rows = []
    setting = "LP K=11 eps=0.1 Delta=0"
    for m in range(1, 6):
        gamma = series_gamma("opt", 11, m, 0.1, solver=solver)
        rows += [
            verified_row("gamma_opt(l)", setting, f"K=11, m={m}, eps=0.1, Delta=0, qbar=0.75, l={l}", gamma[l])
            for l in range(6, 12)
        ]
    rows.append(
        verified_row(
            "LP objective",
            setting,
            "K=11, m=3, eps=0.1, Delta=0, qbar=0.75",
            optimise_gamma_cached(11, 3, 0.1, solver=solver).objective,
        )
    )
    rows += monte_carlo_table(
        setting, 11, range(1, 7), 0.1, ERROR_SERIES, draws, seed, series_labels=ERROR_LABELS, solver=solver
    )
    gamma = series_gamma("opt", 11, 3, 0.1, 1e-5, mj.composed_delta(3, 1e-5), solver=solver)
    rows += [
        verified_row(
            "gamma_opt(l)",
            "LP K=11 eps=0.1 Delta=1e-5",
            f"K=11, m=3, eps=0.1, Delta=1e-5, delta=1-(1-Delta)^3, l={l}",
            gamma[l],
        )
        for l in range(6, 12)
    ]
    rows += monte_carlo_table(
        "LP K=11 eps=0.03 Delta=0",
        11,
        (1, 3, 5),
        0.03,
        ERROR_SERIES,
        draws,
        seed,
        series_labels=ERROR_LABELS,
        solver=solver,
    )
    return rows


def k101_rows(draws, seed, solver="highs"):
    """Check setting 2 (K=101, ε=0.1, Δ=0): errors, γ_const, and the jagged γ_opt at m=10."""
    setting = "LP K=101 eps=0.1 Delta=0"
    ms = (10, 20, 30, 40, 60, 80)
    rows = monte_carlo_table(
        setting,
        101,
        ms,
        0.1,
        ("opt", "Sub", "DSub", "const"),
        draws,
        seed,
        series_labels=("opt", "Sub", "DSub", "RR"),
        solver=solver,
    )
    rows += [
        verified_row("gamma_const", setting, f"K=101, m={m}, eps=0.1, Delta=0", mj.gamma_constant(101, m, 0.1)[0])
        for m in ms
    ]
    gamma = series_gamma("opt", 101, 10, 0.1, solver=solver)
    parameters = "K=101, m=10, eps=0.1, Delta=0, qbar=0.75"
    rows += [verified_row("gamma_opt(l)", setting, f"{parameters}, l={l}", gamma[l]) for l in (55, 56, 57)]
    zero = 51 + int(np.argmin(gamma[51:61]))
    rows += [
        verified_row("min_{l=51..60} gamma_opt(l) (jagged gamma)", setting, parameters, gamma[zero]),
        verified_row(
            "gamma_opt next to that zero, max of l-1 and l+1",
            setting,
            parameters,
            max(gamma[zero - 1], gamma[zero + 1]),
        ),
    ]
    return rows


def prior_rows(draws, seed, solver="highs"):
    """F9: γ_opt for T_U and T_P at m=5 and their errors under U[0,1] and U[0,0.1]."""
    rows = []
    setting = "priors K=11 eps=0.1 Delta=0"
    for series in ("opt-U", "opt-P"):
        gamma = series_gamma(series, 11, 5, 0.1, solver=solver)
        rows += [
            verified_row(f"gamma_{series}(l)", setting, f"K=11, m=5, eps=0.1, Delta=0, l={l}", gamma[l])
            for l in range(6, 12)
        ]
    for actual in ("T_U", "U[0,0.1]"):
        rows += monte_carlo_table(
            setting, 11, (3, 5), 0.1, ("opt-U", "opt-P", "Sub", "const"), draws, seed, actual=actual, solver=solver
        )
    return rows


def verified_numbers(*, quick: bool, seed: int, solver: str) -> pd.DataFrame:
    """Recompute the numbers behind the spec's §5 tables and §6 acceptance checks, one row per number.

    Columns :data:`VERIFIED_COLUMNS`: ``value`` is ours and ``samples`` the number of Monte-Carlo
    draws or random points behind it (0 for exact values; kept out of ``parameters`` so that a row
    has the same key in every profile). The spec's values, comparisons and tolerances are claims
    of the registry ``workflow/claims/darrm.yaml``, which the scorecard judges.
    Monte-Carlo sizes: K=11 2e5 draws, K=101 2e4 draws, random-point checks 2e5 points; quick:
    2e4 / 5e3 / 2e4. About 10 s (quick ≈ 6 s).

    The K=101, m=10 rows give γ_opt at l = 55, 56, 57 (the spec's "γ(55)=0, γ(56)=0.80" is judged
    literally by the registry; we get γ(55)=γ(57)=0.80, γ(56)=0 with four solvers) and the
    label-free pair "a zero in l = 51..60, and the largest γ next to it".
    """
    draws_11, draws_101, points = (20_000, 5_000, 20_000) if quick else (200_000, 20_000, 200_000)
    rows = (
        lemmas.subsampling_rows()
        + lemmas.randomized_response_rows(seed)
        + lemmas.vertex_reduction_rows(points, seed, solver)
        + k11_rows(draws_11, seed, solver)
        + k101_rows(draws_101, seed, solver)
        + prior_rows(draws_11, seed, solver)
        + lemmas.majority_rows(solver)
        + lemmas.m1_rows(solver)
        + lemmas.double_subsampling_rows()
        + lemmas.lp_size_rows()
    )
    return pd.DataFrame(rows, columns=VERIFIED_COLUMNS)
