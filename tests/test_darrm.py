"""DaRRM (Jiang, Zhang & Joshi 2024): acceptance checks of spec §6 and the privacy guarantees.

Numbering follows spec §6. Every γ the optimiser returns is checked with the exact vertex
verifier; infeasible γ must fail it; random points of F^K never beat the vertex maximum.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpreplication.accounting import privacy_verifier as V
from dpreplication.mechanisms import feasible_region
from dpreplication.mechanisms import majority as M
from dpreplication.optimisation import gamma_lp as LP
from dpreplication.replications import darrm as R
from dpreplication.replications import darrm_verified
from dpreplication.workflow_config import profile_config

CONFIG = profile_config("default", Path(__file__).resolve().parents[1])["darrm"]


def settings(section: str, **changes) -> dict:
    """The default profile's settings of ``darrm.<section>``, with ``changes``."""
    return {**CONFIG[section], **changes}


def rng(*keys):
    return np.random.default_rng([20240, *keys])


def enumerate_vote_vectors(K):
    return (np.arange(2**K)[:, None] >> np.arange(K)[None, :]) & 1


# --------------------------------------------------------------------------- §6.1 PB pmf


@pytest.mark.parametrize("K", [1, 2, 5, 10])
def test_poisson_binomial_matches_enumeration(K):
    p = rng(K).random((3, K))
    S = enumerate_vote_vectors(K)
    weights = np.prod(np.where(S[None], p[:, None, :], 1 - p[:, None, :]), axis=2)
    brute = np.stack([np.bincount(S.sum(axis=1), weights=w, minlength=K + 1) for w in weights])
    alpha = M.poisson_binomial_pmf(p)
    np.testing.assert_allclose(alpha, brute, atol=1e-12, rtol=0)
    np.testing.assert_allclose(alpha.sum(axis=1), 1.0, atol=1e-12)
    assert alpha.min() >= -1e-15


def test_darrm_output_probability_matches_enumeration_of_algorithm_1():
    K = 7
    gamma = rng(1).random(K + 1)
    p = rng(2).random(K)
    S = enumerate_vote_vectors(K)
    weight = np.prod(np.where(S, p, 1 - p), axis=1)
    L = S.sum(axis=1)
    release_one = gamma[L] * (L > K / 2) + (1 - gamma[L]) / 2
    assert M.darrm_probability_one(gamma, M.poisson_binomial_pmf(p)) == pytest.approx(weight @ release_one, abs=1e-14)


def test_sampler_matches_output_probability():
    K, n = 11, 200_000
    gamma = M.gamma_subsampling(K, 3)
    p = rng(3).random(K)
    outputs = M.sample_darrm_from_probabilities(p, gamma, n, rng(4))
    exact = float(M.darrm_probability_one(gamma, M.poisson_binomial_pmf(p)))
    assert abs(outputs.mean() - exact) < 5 * np.sqrt(exact * (1 - exact) / n)


# --------------------------------------------------------------------------- §6.2 γ_Sub, §6.3 γ_const


@pytest.mark.parametrize("K,m", [(7, 3), (9, 4), (11, 5), (11, 1)])
def test_gamma_sub_matches_subsampling_enumeration(K, m):
    counts, enumerated = M.subsample_majority_probability_enumerated(K, m)
    np.testing.assert_allclose(M.subsample_majority_probability(K, m)[counts], enumerated, atol=1e-12, rtol=0)
    gamma = M.gamma_subsampling(K, m)
    np.testing.assert_allclose(gamma, gamma[::-1], atol=1e-15)


def test_gamma_sub_with_all_mechanisms_is_the_majority():
    np.testing.assert_allclose(M.gamma_subsampling(11, 11), 1.0, atol=1e-15)


def test_gamma_const_value_and_privacy():
    gamma = M.gamma_constant(11, 1, 0.1)
    assert gamma[0] == pytest.approx(0.099813, abs=1e-6)
    assert gamma[0] == pytest.approx(np.tanh(0.05) / np.tanh(0.55), abs=1e-15)
    assert V.verify_privacy(gamma, 11, 1, 0.1).violation <= 0


@pytest.mark.parametrize("m", [1, 3, 5])
def test_gamma_const_approximate_dp_is_private(m):
    Delta = 1e-5
    delta = M.composed_delta(m, Delta)
    assert V.verify_privacy(M.gamma_constant(11, m, 0.1, Delta), 11, m, 0.1, Delta, delta).violation <= 0


# --------------------------------------------------------------------------- §6.4 constraint set


@pytest.mark.parametrize("K,Delta,rows", [(11, 0.0, 364), (11, 1e-5, 31_824), (101, 0.0, 182_104)])
def test_vertex_multiset_counts(K, Delta, rows):
    family = feasible_region.vertex_multisets(K, 0.1, Delta)
    assert family.n_rows == rows == feasible_region.number_of_vertex_multisets(K, Delta)
    counts = family.counts()
    assert (counts.sum(axis=1) == K).all() and counts.min() >= 0


def test_vertex_multiset_pmfs_match_direct_poisson_binomial():
    family = feasible_region.vertex_multisets(11, 0.3, 1e-3)
    rows = rng(5).choice(family.n_rows, 200, replace=False)
    alpha, alpha_prime = family.pmfs(rows)
    points = np.stack([np.repeat(family.vertices, n, axis=0) for n in family.counts(rows)])
    np.testing.assert_allclose(alpha, M.poisson_binomial_pmf(points[..., 0]), atol=1e-15)
    np.testing.assert_allclose(alpha_prime, M.poisson_binomial_pmf(points[..., 1]), atol=1e-15)


def test_feasible_region_vertices_satisfy_the_dp_inequalities():
    for Delta in (0.0, 0.01):
        vertices = feasible_region.feasible_region_vertices(0.5, Delta)
        assert len(vertices) == (8 if Delta else 4)
        lo, hi = feasible_region.feasible_interval(vertices[:, 0], 0.5, Delta)
        assert np.all(lo <= vertices[:, 1] + 1e-15) and np.all(vertices[:, 1] <= hi + 1e-15)


# --------------------------------------------------------------------------- §6.5 the LP


def test_lp_k11_m3_matches_spec():
    result = LP.optimise_gamma(11, 3, 0.1)
    assert result.objective == pytest.approx(0.848733, abs=1e-5)
    np.testing.assert_allclose(result.upper_half, [0.9397, 0.5421, 1, 1, 0.9777, 1], atol=2e-3)
    assert V.verify_privacy(result.gamma, 11, 3, 0.1).violation <= 1e-12
    assert result.n_vertex_multisets == 364 and result.n_cols == 6 and result.nnz > 0


@pytest.mark.parametrize("solver", ["cvxpy-highs", "cvxpy-clarabel", "highs-ipm"])
def test_lp_solvers_agree(solver):
    reference = LP.optimise_gamma_cached(11, 3, 0.1, 1e-5, M.composed_delta(3, 1e-5))
    result = LP.optimise_gamma(11, 3, 0.1, 1e-5, M.composed_delta(3, 1e-5), solver=solver)
    np.testing.assert_allclose(result.gamma, reference.gamma, atol=1e-6)
    assert V.verify_privacy(result.gamma, 11, 3, 0.1, 1e-5, M.composed_delta(3, 1e-5)).violation <= 1e-12


def test_repair_by_scaling_restores_feasibility():
    constraints = LP.darrm_constraint_matrix(11, 3, 0.1)
    x = LP.optimise_gamma_cached(11, 3, 0.1).upper_half * (1 + 1e-6)
    repaired, before, scale, after = LP.repair_by_scaling(x, constraints.A, constraints.b)
    assert before > 0 and scale < 1 and after <= 0
    assert V.verify_privacy(M.symmetric_gamma(repaired), 11, 3, 0.1).violation <= 1e-12


def test_canonical_tie_break_keeps_the_objective():
    plain = LP.optimise_gamma_cached(11, 4, 0.1)
    canonical = LP.optimise_gamma(11, 4, 0.1, canonical=True)
    assert canonical.objective == pytest.approx(plain.objective, abs=1e-8)
    assert V.verify_privacy(canonical.gamma, 11, 4, 0.1).violation <= 1e-12


OPTIMISER_CASES = (
    [(11, m, 0.1, 0.0) for m in range(1, 12)]
    + [(11, m, 0.1, 1e-5) for m in (1, 2, 3, 5)]
    + [(7, m, 2.0, 0.0) for m in (1, 2, 3)]
    + [(9, 2, 0.5, 1e-3)]
)


@pytest.mark.parametrize("K,m,epsilon,Delta", OPTIMISER_CASES)
def test_every_optimised_gamma_passes_the_verifier(K, m, epsilon, Delta):
    delta = M.composed_delta(m, Delta)
    result = LP.optimise_gamma_cached(K, m, epsilon, Delta, delta)
    report = V.verify_privacy(result.gamma, K, m, epsilon, Delta, delta)
    assert report.violation <= 1e-12, report
    assert result.max_violation_after_repair <= 0
    assert np.all((result.gamma >= 0) & (result.gamma <= 1))


@pytest.mark.parametrize(
    "K,m,epsilon,Delta", [(11, 2, 0.1, 0.0), (11, 3, 0.1, 0.0), (11, 3, 0.1, 1e-5), (7, 2, 2.0, 0.0)]
)
def test_optimal_gamma_beats_every_feasible_baseline(K, m, epsilon, Delta):
    delta = M.composed_delta(m, Delta)
    result = LP.optimise_gamma_cached(K, m, epsilon, Delta, delta)
    c = M.objective_coefficients(K)
    baselines = {
        "Sub": M.gamma_subsampling(K, m),
        "const": M.gamma_constant(K, m, epsilon, Delta, delta),
        "DSub": M.gamma_double_subsampling(K, m),
    }
    for name, gamma in baselines.items():
        if V.verify_privacy(gamma, K, m, epsilon, Delta, delta).violation <= 1e-12:
            assert result.objective >= c @ M.gamma_upper_half(gamma) - 1e-9, name


# --------------------------------------------------------------------------- §6.6–§6.7


@pytest.mark.parametrize("epsilon", [0.03, 0.1])
def test_gamma_opt_is_gamma_sub_at_m1(epsilon):
    result = LP.optimise_gamma_cached(11, 1, epsilon)
    assert np.abs(result.gamma - M.gamma_subsampling(11, 1)).max() < 1e-6


def test_majority_is_private_at_m6_but_not_at_m5():
    majority = M.gamma_majority(11)
    assert V.verify_privacy(majority, 11, 6, 0.1).violation <= 1e-12
    report = V.verify_privacy(majority, 11, 5, 0.1)
    assert not report.is_private
    assert report.delta_excess == pytest.approx(1.99e-3, abs=1e-4)
    assert V.effective_budget(majority, 11, 0.1) == pytest.approx(6.0, abs=1e-6)


@pytest.mark.parametrize("m", range(6, 12))
def test_lp_returns_the_majority_for_large_budgets(m):
    np.testing.assert_allclose(LP.optimise_gamma_cached(11, m, 0.1).gamma, 1.0, atol=1e-9)


def test_infeasible_gammas_fail_the_verifier_and_the_brute_force_check():
    too_large = np.minimum(1.0, 1.5 * M.gamma_subsampling(11, 1))
    for gamma, m in [(M.gamma_majority(11), 5), (M.gamma_majority(11), 1), (too_large, 1)]:
        assert V.verify_privacy(gamma, 11, m, 0.1).violation > 1e-4
        brute = V.brute_force_privacy_check(gamma, 11, m, 0.1, 0.0, 0.0, 20_000, rng(6, m))
        assert brute.max_violation > 0


# --------------------------------------------------------------------------- §6.8 errors


def test_errors_match_spec_and_are_ordered():
    spec = {
        1: (0.1311, 0.1311, 0.1311, 0.1807),
        3: (0.0376, 0.0672, 0.0952, 0.1410),
        5: (0.0010, 0.0209, 0.0672, 0.1025),
    }
    ms = (1, 2, 3, 4, 5)
    gammas = np.stack(
        [
            g
            for m in ms
            for g in (
                LP.optimise_gamma_cached(11, m, 0.1).gamma,
                M.gamma_double_subsampling(11, m),
                M.gamma_subsampling(11, m),
                M.gamma_constant(11, m, 0.1),
            )
        ]
    )
    mean, _ = M.monte_carlo_error(gammas, 11, M.UNIFORM_PRIOR, 200_000, 1, rng(7))
    table = dict(zip(ms, mean.reshape(len(ms), 4)))
    for m, values in spec.items():
        np.testing.assert_allclose(table[m], values, atol=0.002, err_msg=f"E at m={m}: (opt, DSub, Sub, RR)")
    for m, (opt, dsub, sub, rr) in table.items():
        assert opt <= dsub + 1e-9 and dsub <= sub + 1e-9 and sub < rr, m


def test_error_formula_matches_its_definition():
    K = 11
    gamma = rng(8).random(K + 1)
    alpha = M.poisson_binomial_pmf(rng(9).random((50, K)))
    direct = np.abs(M.darrm_probability_one(gamma, alpha) - M.majority_probability_one(alpha))
    np.testing.assert_allclose(M.ensemble_error(gamma, alpha), direct, atol=1e-15)


def test_objective_coefficients_match_the_papers_grid_monte_carlo():
    grid = M.objective_coefficients_grid(11, rng(10), n_samples=20_000)
    np.testing.assert_allclose(grid, M.objective_coefficients(11, 0.745), atol=5e-3)
    assert M.UNIFORM_PRIOR.folded_mean == pytest.approx(0.75)
    assert M.POLARIZED_PRIOR.folded_mean == pytest.approx(0.85)


# --------------------------------------------------------------------------- §6.9–§6.10 brute force


@pytest.mark.parametrize("Delta", [0.0, 1e-5])
def test_random_points_never_exceed_the_vertex_maximum(Delta):
    delta = M.composed_delta(3, Delta)
    gamma = LP.optimise_gamma_cached(11, 3, 0.1, Delta, delta).gamma
    vertex = V.verify_privacy(gamma, 11, 3, 0.1, Delta, delta).violation
    brute = V.brute_force_privacy_check(gamma, 11, 3, 0.1, Delta, delta, 100_000, rng(11))
    assert brute.max_violation <= vertex + 1e-12


@pytest.mark.parametrize("K,m,epsilon,Delta", [(3, 1, 0.5, 0.0), (5, 2, 0.5, 1e-3), (5, 1, 1.0, 0.01)])
def test_brute_force_on_random_gammas_for_small_K(K, m, epsilon, Delta):
    delta = M.composed_delta(m, Delta)
    for trial in range(3):
        gamma = rng(12, K, trial).random(K + 1)
        exact = V.verify_privacy(gamma, K, m, epsilon, Delta, delta).violation
        assert V.verify_privacy_all_vertex_tuples(gamma, K, m, epsilon, Delta, delta) == pytest.approx(exact, abs=1e-13)
        brute = V.brute_force_privacy_check(gamma, K, m, epsilon, Delta, delta, 20_000, rng(13, K, trial))
        assert brute.max_violation <= exact + 1e-12
        assert brute.max_violation >= exact - 0.05


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.0])
def test_double_subsampling_is_private(epsilon):
    for m in range(1, 6):
        gamma = M.gamma_double_subsampling(11, m)
        assert V.verify_privacy(gamma, 11, m, epsilon).violation <= 1e-12
        assert V.iid_privacy_violation(gamma, 11, m, epsilon, n_grid=101) <= 1e-12


# --------------------------------------------------------------------------- §6.13 K = 101, §6.14 votes


def test_k101_lp_is_private_and_best():
    """Its time is a benchmark (benchmarks/test_darrm_benchmarks.py), never asserted here."""
    result = LP.optimise_gamma_cached(101, 10, 0.1)
    assert result.n_vertex_multisets == 182_104
    assert V.verify_privacy(result.gamma, 101, 10, 0.1).violation <= 1e-12
    gammas = np.stack(
        [
            result.gamma,
            M.gamma_constant(101, 10, 0.1),
            M.gamma_double_subsampling(101, 10),
            M.gamma_subsampling(101, 10),
        ]
    )
    (opt, rr, dsub, sub), _ = M.monte_carlo_error(gammas, 101, M.UNIFORM_PRIOR, 5_000, 1, rng(14))
    assert opt < 0.04 and opt < rr < dsub < sub


def test_synthetic_votes_reproduce_the_analytic_accuracy():
    K, a, n = 11, 0.7, 200_000
    gamma = LP.optimise_gamma_cached(11, 3, 0.1).gamma
    votes = rng(15).random((n, K)) < a
    accuracy = M.sample_darrm(votes, gamma, rng(16)).mean()
    expected = M.expected_accuracy(gamma, a)
    assert abs(accuracy - expected) < 5 * np.sqrt(expected * (1 - expected) / n)
    direct = sum(stats.binom.pmf(l, K, a) * (gamma[l] * (l > K / 2) + (1 - gamma[l]) / 2) for l in range(K + 1))
    assert expected == pytest.approx(direct, abs=1e-14)


# --------------------------------------------------------------------------- replication tables


def test_figure_tables_are_tidy():
    solver = CONFIG["solver"]
    shapes = R.gamma_shapes(figure="F2", prior_means=None, **settings("f2_gamma_shapes", ms=(1, 3), solver=solver))
    assert list(shapes.columns) == R.SHAPE_COLUMNS and len(shapes) == 2 * 3 * 12
    f3 = settings("f3_errors", n_draws=2_000, n_repeats=2)
    errors = R.ensemble_errors(shapes, figure="F3", actual_priors=["T_U"], **f3, seed=0)
    assert list(errors.columns) == R.ERROR_COLUMNS and len(errors) == 6
    assert (errors.error_std >= 0).all()
    f9 = settings("f9_prior_shapes", ms=(5,), solver=solver)
    prior_shapes = R.gamma_shapes(figure="F9", Delta=0.0, composition="general", mean_probability=None, **f9)
    priors = R.ensemble_errors(
        prior_shapes, figure="F9", **settings("f9_prior_errors", n_draws=1_000, n_repeats=2), seed=0
    )
    assert (priors.loc[priors.actual_prior == "p=0.5", "error_mean"] == 0).all()
    region = R.figure4_feasible_region(**settings("f4_feasible_region", epsilon=0.5, Delta=0.05))
    assert list(region.columns) == R.REGION_COLUMNS
    assert (region.element == "region").sum() == 8
    assert set(region.loc[region.element == "boundary", "label"]) == {"(a)", "(b)", "(c)", "(d)"}


def test_verified_numbers_hold():
    table = darrm_verified.verified_numbers(quick=True, seed=0, solver=CONFIG["solver"])
    assert list(table.columns) == darrm_verified.VERIFIED_COLUMNS
    checked = table[table.spec_value.notna() & ~table.parameters.str.endswith(("l=55", "l=56"))]
    holds = {
        "abs": lambda r: abs(r.value - r.spec_value) <= r.tolerance,
        "le": lambda r: r.value <= r.spec_value + r.tolerance,
        "gt": lambda r: r.value > r.spec_value,
    }
    failures = [
        f"{r.quantity} [{r.parameters}]: {r.value:.6g} vs {r.spec_value:.6g} ({r.comparison} {r.tolerance:g})"
        for r in checked.itertuples()
        if not holds[r.comparison](r)
    ]
    assert not failures, failures
