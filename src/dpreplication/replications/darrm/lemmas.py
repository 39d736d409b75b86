"""DaRRM's lemmas and theorems checked number by number (spec §5–§6): rows of the verified table.

Each function returns rows of :data:`VERIFIED_COLUMNS` (built by :func:`verified_row`) for one
statement: Lemma 3.1 (γ_Sub is the subsampling probability), randomized response (γ_const, the
tanh identity, exact and random-point privacy, its effective budget), Lemma 5.1 (the vertex
reduction of the privacy condition), γ ≡ 1 (plain majority is ⌈K/2⌉ε-DP), Lemma 3.2 (γ_opt =
γ_Sub at m = 1), Theorem 4.1 (γ_DSub is private) and the LP's size. Random points draw from
``seeding.generator(seed, "darrm", "verified", setting, …)``.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from dpreplication import seeding
from dpreplication.accounting import privacy_verifier as verifier
from dpreplication.mechanisms import feasible_region
from dpreplication.mechanisms import majority as mj
from dpreplication.replications.darrm.analytic import PAPER, series_gamma

VERIFIED_COLUMNS = ["quantity", "setting", "parameters", "samples", "value"]
"""The verified table holds recomputed values only; the spec's value, comparison and tolerance
for each row are claims of ``workflow/claims/darrm.yaml`` (selected by quantity, setting and the
typed ``parameters``)."""


def verified_row(quantity, setting, parameters, value, samples=0):
    """One recomputed number; ``samples`` = Monte-Carlo draws or random points behind it (0: exact)."""
    return (quantity, setting, parameters, int(samples), float(value))


def subsampling_rows():
    """Lemma 3.1: γ_Sub against full enumeration of S ∈ {0,1}^K and all m-subsets."""
    rows = []
    for K, m in [(7, 3), (11, 5), (9, 4), (11, 1)]:
        count, enumerated = mj.subsample_majority_probability_enumerated(K, m)
        gap = np.abs(mj.subsample_majority_probability(K, m)[count] - enumerated).max()
        rows.append(
            verified_row("max |h_m(l) - enumerated subsampling probability|", "Lemma 3.1", f"K={K}, m={m}", gap)
        )
    return rows


def randomized_response_rows(seed):
    """γ_const values, the tanh identity, exact and random-point privacy, effective budget."""
    rows = []
    for m in (1, 3, 5):
        gamma = mj.gamma_constant(11, m, 0.1)
        parameters = f"K=11, m={m}, eps=0.1, Delta=0"
        brute = verifier.brute_force_privacy_check(
            gamma, 11, m, 0.1, 0.0, 0.0, 20_000, seeding.generator(seed, PAPER, "verified", "RR", m)
        )
        rows += [
            verified_row("gamma_const", "RR", parameters, gamma[0]),
            verified_row(
                "|gamma_const - tanh(m eps/2)/tanh(K eps/2)|",
                "RR",
                parameters,
                abs(gamma[0] - np.tanh(m * 0.05) / np.tanh(11 * 0.05)),
            ),
            verified_row(
                "vertex privacy violation of gamma_const",
                "RR",
                parameters,
                verifier.verify_privacy(gamma, 11, m, 0.1).violation,
            ),
            verified_row(
                "random-point privacy violation of gamma_const",
                "RR",
                parameters,
                brute.max_violation,
                samples=20_000,
            ),
            verified_row(
                "effective budget m_eff of gamma_const (RR is loose)",
                "RR",
                parameters,
                verifier.effective_budget(gamma, 11, 0.1),
            ),
        ]
    return rows


def vertex_reduction_rows(points, seed, solver="highs"):
    """Random and near-vertex points of F^K never beat the vertex maximum (Lemma 5.1)."""
    rows = []
    for Delta in (0.0, 1e-5):
        for m in (2, 3, 5):
            delta = mj.composed_delta(m, Delta)
            gamma = series_gamma("opt", 11, m, 0.1, Delta, delta, solver=solver)
            vertex = verifier.verify_privacy(gamma, 11, m, 0.1, Delta, delta).violation
            rng = seeding.generator(seed, PAPER, "verified", "vertex", m, Delta)
            brute = verifier.brute_force_privacy_check(gamma, 11, m, 0.1, Delta, delta, points, rng)
            rows.append(
                verified_row(
                    "random-point violation minus vertex violation of gamma_opt",
                    "vertex reduction",
                    f"K=11, m={m}, eps=0.1, Delta={Delta}",
                    brute.max_violation - vertex,
                    samples=points,
                )
            )
    return rows


def majority_rows(solver="highs"):
    """γ ≡ 1 is ⌈K/2⌉ε-DP: δ excess at m=5, feasibility at m=6, effective budget, LP = 1 for m ≥ 6."""
    rows = []
    setting = "majority K=11 eps=0.1 Delta=0"
    for m in (5, 6):
        report = verifier.verify_privacy(mj.gamma_majority(11), 11, m, 0.1)
        rows.append(
            verified_row(
                "delta excess of gamma = 1 (max Pr gap)", setting, f"K=11, m={m}, eps=0.1", report.delta_excess
            )
        )
    for epsilon in (0.1, 0.5, 1.0, 2.0):
        m_eff = verifier.effective_budget(mj.gamma_majority(11), 11, epsilon)
        rows.append(
            verified_row(
                "effective budget m_eff of gamma = 1",
                f"majority K=11 eps={epsilon} Delta=0",
                f"K=11, eps={epsilon}",
                m_eff,
            )
        )
    for m in range(6, 12):
        gap = np.abs(series_gamma("opt", 11, m, 0.1, solver=solver) - 1).max()
        rows.append(verified_row("max |gamma_opt - 1|", setting, f"K=11, m={m}, eps=0.1", gap))
    return rows


def m1_rows(solver="highs"):
    """Lemma 3.2: γ_opt = γ_Sub at m=1 (within LP tolerance), except at ε=2 where it differs."""
    rows = []
    for K, epsilon, Delta in product((5, 7, 11, 15), (0.05, 0.5, 2.0), (0.0, 1e-4)):
        gap = np.abs(series_gamma("opt", K, 1, epsilon, Delta, Delta, solver=solver) - mj.gamma_subsampling(K, 1)).max()
        rows.append(
            verified_row(
                "max |gamma_opt - gamma_Sub| at m=1 (Lemma 3.2)", "m=1", f"K={K}, eps={epsilon}, Delta={Delta}", gap
            )
        )
    return rows


def double_subsampling_rows():
    """Theorem 4.1: γ_DSub private at all vertex multisets and on the i.i.d. grid."""
    worst = max(
        max(
            verifier.verify_privacy(mj.gamma_double_subsampling(11, m), 11, m, eps).violation,
            verifier.iid_privacy_violation(mj.gamma_double_subsampling(11, m), 11, m, eps),
        )
        for m in range(1, 6)
        for eps in (0.1, 1.0, 2.0)
    )
    return [
        verified_row(
            "max privacy violation of gamma_DSub (vertices and i.i.d. grid)",
            "Theorem 4.1",
            "K=11, m=1..5, eps in {0.1, 1, 2}, Delta=0",
            worst,
        )
    ]


def lp_size_rows():
    """Check the number of vertex multisets C(K+V−1, V−1) (spec §6.4)."""
    return [
        verified_row(
            "number of vertex multisets",
            "LP size",
            f"K={K}, Delta={Delta}",
            feasible_region.vertex_multisets(K, 0.1, Delta).n_rows,
        )
        for K, Delta in [(11, 0.0), (11, 1e-5), (101, 0.0)]
    ]
