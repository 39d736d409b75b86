"""Tests of :mod:`dpreplication.mechanisms.majority_utility`, the utility of DaRRM's private majority
(Jiang, Zhang & Joshi 2024; spec §6). Its docstrings state that the error of DaRRM_γ is
``½ |Σ_l s_l α_l (1 − γ(l))|`` (α the Poisson-binomial pmf of the vote count), that the objective
coefficients are the authors' grid Monte-Carlo in exact form, and that DaRRM's accuracy with teachers
each correct with probability ``a`` is ``Σ_l Bin(l; K, a)[γ(l)1{l > K/2} + (1 − γ(l))/2]``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpreplication.mechanisms import majority as M
from dpreplication.mechanisms import majority_utility as MU
from dpreplication.optimisation import gamma_lp as LP


def rng(*keys):
    return np.random.default_rng([20240, *keys])


# --------------------------------------------------------------------------- §6.8 errors


def test_error_formula_matches_its_definition():
    K = 11
    gamma = rng(8).random(K + 1)
    alpha = M.poisson_binomial_pmf(rng(9).random((50, K)))
    direct = np.abs(M.darrm_probability_one(gamma, alpha) - M.majority_probability_one(alpha))
    np.testing.assert_allclose(MU.ensemble_error(gamma, alpha), direct, atol=1e-15)


def test_objective_coefficients_match_the_papers_grid_monte_carlo():
    grid = MU.objective_coefficients_grid(11, rng(10), n_samples=20_000)
    np.testing.assert_allclose(grid, MU.objective_coefficients(11, 0.745), atol=5e-3)
    assert MU.UNIFORM_PRIOR.folded_mean == pytest.approx(0.75)
    assert MU.POLARIZED_PRIOR.folded_mean == pytest.approx(0.85)


# --------------------------------------------------------------------------- §6.14 votes


def test_synthetic_votes_reproduce_the_analytic_accuracy():
    K, a, n = 11, 0.7, 200_000
    gamma = LP.optimise_gamma_cached(11, 3, 0.1).gamma
    votes = rng(15).random((n, K)) < a
    accuracy = M.sample_darrm(votes, gamma, rng(16), voter_epsilon=1.0).mean()
    expected = MU.expected_accuracy(gamma, a)
    assert abs(accuracy - expected) < 5 * np.sqrt(expected * (1 - expected) / n)
    direct = sum(stats.binom.pmf(l, K, a) * (gamma[l] * (l > K / 2) + (1 - gamma[l]) / 2) for l in range(K + 1))
    assert expected == pytest.approx(direct, abs=1e-14)
