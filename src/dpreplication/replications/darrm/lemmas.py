"""DaRRM's lemmas and theorems checked number by number (spec §5–§6): the exact quantities.

Each function computes one quantity of the verified table at one case's typed parameters
(:class:`~dpreplication.replications.darrm.verified.Case`) and returns ``(value, samples)``,
``samples`` the random points behind it (0: exact). The statements: Lemma 3.1 (γ_Sub is the
subsampling probability), randomized response (γ_const, the tanh identity, exact and random-point
privacy, its effective budget), Lemma 5.1 (the vertex reduction of the privacy condition), γ ≡ 1
(plain majority is ⌈K/2⌉ε-DP), Lemma 3.2 (γ_opt = γ_Sub at m = 1), Theorem 4.1 (γ_DSub is
private) and the LP's size. Random points draw from ``seeding.generator(seed, "darrm", "verified",
setting, …)``.
"""

from __future__ import annotations

import numpy as np

from dpreplication import seeding
from dpreplication.accounting import privacy_verifier as verifier
from dpreplication.mechanisms import feasible_region
from dpreplication.mechanisms import majority as mj
from dpreplication.replications.darrm.analytic import PAPER, series_gamma

RANDOMIZED_RESPONSE_POINTS = 20_000
"""Random points of F^K behind randomized response's random-point check (every profile)."""


def subsampling_gap(case, run):
    """Lemma 3.1: max |γ_Sub − the subsampling probability enumerated over S ∈ {0,1}^K and m-subsets|."""
    count, enumerated = mj.subsample_majority_probability_enumerated(case.K, case.m)
    return np.abs(mj.subsample_majority_probability(case.K, case.m)[count] - enumerated).max(), 0


def gamma_constant(case, run):
    """γ_const of randomized response (App. A.1)."""
    return mj.gamma_constant(case.K, case.m, case.eps)[0], 0


def tanh_gap(case, run):
    """|γ_const − tanh(mε/2)/tanh(Kε/2)|: the Δ = 0 identity of App. A.1."""
    ratio = np.tanh(case.m * case.eps / 2) / np.tanh(case.K * case.eps / 2)
    return abs(mj.gamma_constant(case.K, case.m, case.eps)[0] - ratio), 0


def constant_vertex_violation(case, run):
    """Compute the exact verifier's privacy violation of γ_const (≤ 0: mε-DP)."""
    gamma = mj.gamma_constant(case.K, case.m, case.eps)
    return verifier.verify_privacy(gamma, case.K, case.m, case.eps).violation, 0


def constant_random_point_violation(case, run):
    """Compute the largest privacy violation of γ_const at random points of F^K."""
    gamma = mj.gamma_constant(case.K, case.m, case.eps)
    rng = seeding.generator(run.seed, PAPER, "verified", "RR", case.m)
    brute = verifier.brute_force_privacy_check(
        gamma, case.K, case.m, case.eps, 0.0, 0.0, RANDOMIZED_RESPONSE_POINTS, rng
    )
    return brute.max_violation, RANDOMIZED_RESPONSE_POINTS


def constant_effective_budget(case, run):
    """Find the smallest m at which γ_const is private (randomized response is loose: below its m)."""
    return verifier.effective_budget(mj.gamma_constant(case.K, case.m, case.eps), case.K, case.eps), 0


def vertex_reduction_gap(case, run):
    """Lemma 5.1: random and near-vertex points of F^K minus the vertex maximum, for γ_opt at (mε, δ)."""
    delta = mj.composed_delta(case.m, case.Delta)
    gamma = series_gamma("opt", case.K, case.m, case.eps, case.Delta, delta, solver=run.solver)
    vertex = verifier.verify_privacy(gamma, case.K, case.m, case.eps, case.Delta, delta).violation
    rng = seeding.generator(run.seed, PAPER, "verified", "vertex", case.m, case.Delta)
    brute = verifier.brute_force_privacy_check(gamma, case.K, case.m, case.eps, case.Delta, delta, run.points, rng)
    return brute.max_violation - vertex, run.points


def majority_delta_excess(case, run):
    """γ ≡ 1 at budget mε: the largest Pr gap beyond e^{mε} (> 0: not mε-DP)."""
    return verifier.verify_privacy(mj.gamma_majority(case.K), case.K, case.m, case.eps).delta_excess, 0


def majority_effective_budget(case, run):
    """Find the smallest m at which γ ≡ 1 (plain majority) is private: ⌈K/2⌉."""
    return verifier.effective_budget(mj.gamma_majority(case.K), case.K, case.eps), 0


def optimum_gap_to_majority(case, run):
    """Max |γ_opt − 1|: the LP returns plain majority once m ≥ ⌈K/2⌉."""
    return np.abs(series_gamma("opt", case.K, case.m, case.eps, solver=run.solver) - 1).max(), 0


def optimum_gap_to_subsampling(case, run):
    """Lemma 3.2: max |γ_opt − γ_Sub| at m = 1, at budget (ε, Δ)."""
    gamma = series_gamma("opt", case.K, 1, case.eps, case.Delta, case.Delta, solver=run.solver)
    return np.abs(gamma - mj.gamma_subsampling(case.K, 1)).max(), 0


DOUBLE_SUBSAMPLING_GRID = {"m": range(1, 6), "eps": (0.1, 1.0, 2.0)}
"""Theorem 4.1 is checked at every m and ε of this grid (the quantity's name states it)."""


def double_subsampling_violation(case, run):
    """Theorem 4.1: the largest violation of γ_DSub over the vertices and the i.i.d. grid."""
    worst = max(
        max(
            verifier.verify_privacy(mj.gamma_double_subsampling(case.K, m), case.K, m, eps).violation,
            verifier.iid_privacy_violation(mj.gamma_double_subsampling(case.K, m), case.K, m, eps),
        )
        for m in DOUBLE_SUBSAMPLING_GRID["m"]
        for eps in DOUBLE_SUBSAMPLING_GRID["eps"]
    )
    return worst, 0


def vertex_multisets(case, run):
    """Count the vertex multisets C(K+V−1, V−1), the LP's rows before presolve (spec §6.4)."""
    return feasible_region.vertex_multisets(case.K, case.eps, case.Delta).n_rows, 0
