"""Tests of :mod:`dpreplication.mechanisms.majority`, DaRRM's private majority (Jiang, Zhang & Joshi
2024; spec §6). Its docstrings state that DaRRM_γ outputs 1 with probability
``½ + ½ Σ_l s_l α_l γ(l)`` (α the Poisson-binomial pmf of the vote count) and that it is (mε, δ)-DP iff
its privacy cost stays within ``e^{mε} − 1 + 2δ`` over the feasible region — the condition γ_Sub,
γ_DSub, γ_const and the plain majority (``⌈K/2⌉ε``-DP) are checked against here. Its error is
tested in ``test_majority_utility.py``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpreplication.accounting import privacy_verifier as V
from dpreplication.mechanisms import majority as M
from dpreplication.mechanisms import majority as mj


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
    outputs = M.sample_darrm_from_probabilities(p, gamma, n, rng(4), voter_epsilon=1.0)
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


def test_subsample_majority_matches_lemma_3_1():
    rng = np.random.default_rng(6)
    votes = np.repeat(np.array([[1] * 7 + [0] * 4]), 200_000, axis=0)
    for m in (1, 3, 4, 7):
        p = mj.subsample_majority_probability(11, m)[7]
        assert abs(mj.subsample_majority(votes, m, rng, voter_epsilon=1.0).mean() - p) <= 4.5 * np.sqrt(
            p * (1 - p) / len(votes)
        )


# --------------------------------------------------------------------------- §6.6–§6.7


def test_majority_is_private_at_m6_but_not_at_m5():
    majority = M.gamma_majority(11)
    assert V.verify_privacy(majority, 11, 6, 0.1).violation <= 1e-12
    report = V.verify_privacy(majority, 11, 5, 0.1)
    assert not report.is_private
    assert report.delta_excess == pytest.approx(1.99e-3, abs=1e-4)
    assert V.effective_budget(majority, 11, 0.1) == pytest.approx(6.0, abs=1e-6)


# --------------------------------------------------------------------------- §6.10 γ_DSub


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.0])
def test_double_subsampling_is_private(epsilon):
    for m in range(1, 6):
        gamma = M.gamma_double_subsampling(11, m)
        assert V.verify_privacy(gamma, 11, m, epsilon).violation <= 1e-12
        assert V.iid_privacy_violation(gamma, 11, m, epsilon, n_grid=101) <= 1e-12


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("epsilon", [-0.1, 0.0, math.nan, math.inf])
def test_gamma_constant_refuses_an_epsilon_out_of_range(epsilon):
    """γ_const needs ε > 0 and finite; before, ε = −0.1 gave the γ of ε = 0.1 (0.6079) and NaN gave NaN."""
    with pytest.raises(ValueError, match=f"epsilon must be positive and finite, got {epsilon}"):
        M.gamma_constant(5, 3, epsilon)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"m": 6}, r"m must lie in \[1, K\] = \[1, 5\], got 6"),
        ({"Delta": math.nan}, r"Delta must lie in \[0, 1\], got nan"),
        ({"delta": 1.0}, r"delta must lie in \[0, 1\), got 1.0"),
        ({"tau": -1.0}, "tau must be positive and finite, got -1.0"),
        ({"majority_delta": math.nan}, r"majority_delta must lie in \[0, 1\], got nan"),
    ],
)
def test_gamma_constant_names_each_argument_out_of_range(arguments, message):
    with pytest.raises(ValueError, match=message):
        M.gamma_constant(**{"K": 5, "m": 3, "epsilon": 0.1, **arguments})


def test_composed_delta_refuses_a_nan_delta():
    """Before: ``composed_delta(3, nan)`` returned NaN, a target δ every privacy check then misread."""
    with pytest.raises(ValueError, match=r"Delta must lie in \[0, 1\], got nan"):
        M.composed_delta(3, math.nan)
    with pytest.raises(ValueError, match="m must be non-negative and finite, got -1"):
        M.composed_delta(-1, 1e-5, "simple")
