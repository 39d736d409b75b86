"""Tests of :mod:`dpreplication.mechanisms.enhanced_exponential`, PrivGene's enhanced exponential
mechanism (spec §8). Its docstrings state that selecting with probability ``∝ exp(ε f/Δ)`` under the
dampening factor ``Δ = min(Δ1, Δ2)`` (Eqs. 6–8) is ε-DP (Theorem 1), and that ``k`` candidates drawn
without replacement spend ``ε/k`` each (Algorithm 2), ε in total. The exact privacy audits of EEM
on PrivGene's fitness functions are in ``tests/papers/test_privgene.py``."""

import math

import numpy as np
import pytest

from dpreplication import seeding
from dpreplication.mechanisms import enhanced_exponential as eem
from dpreplication.statistics import counts, goodness_of_fit


def rng(*keys):
    return seeding.generator(20130622, "test_privgene", *keys)


# ------------------------------------------------------------------ dampening factors (Example 1, Eqs. 6–8)


def test_example_1_dampening_factors():
    q = -((np.arange(11.0)[:, None] - np.array([6.0, 7.0, 8.0])) ** 2)
    assert eem.exact_dampening(q) == (128.0, 56.0)
    assert eem.tight_dampening(q) <= 56.0


def test_dampening_rule_and_validation():
    assert eem.dampening_factor(10.0, 3.0, "eem") == 3.0
    assert eem.dampening_factor(10.0, 3.0, "em") == 10.0
    with pytest.raises(ValueError):
        eem.dampening_factor(1.0, 1.0, "other")
    with pytest.raises(ValueError):
        eem.select([1.0, 2.0], 1.0, 1.0, 3, rng("k"))


# ------------------------------------------------------------------ check 6: sampler


@pytest.mark.parametrize("selector", ["exponential_mechanism", "rnm_exp"])
def test_single_selection_matches_its_exact_pmf(selector):
    scores, epsilon, dampening = np.array([0.0, 1.0, 2.0, 2.5, 4.0]), 1.0, 2.0
    generator = rng("sampler", selector)
    draws = np.array([eem.select(scores, epsilon, dampening, 1, generator, selector)[0] for _ in range(20_000)])
    pmf = eem.selection_pmf(scores, epsilon, dampening, selector)
    assert goodness_of_fit(counts(draws, 5), pmf).chi2_pvalue > 1e-3
    if selector == "exponential_mechanism":
        assert np.allclose(pmf, np.exp(epsilon * scores / dampening) / np.exp(epsilon * scores / dampening).sum())


def test_top_k_selection_is_sequential_without_replacement():
    """k = 2 draws with ε/2 each: P(i, j) = P(i)·P(j | i removed), each a softmax with exponent (ε/2)f/Δ."""
    scores, epsilon, dampening = np.array([0.0, 1.0, 2.0, 3.0]), 2.0, 1.0
    generator = rng("top-k")
    pairs = np.array([eem.select(scores, epsilon, dampening, 2, generator) for _ in range(20_000)])
    assert np.all(pairs[:, 0] != pairs[:, 1])
    weights = np.exp(epsilon / 2 * scores / dampening)
    expected = np.array(
        [
            weights[i] / weights.sum() * weights[j] / (weights.sum() - weights[i])
            for i in range(4)
            for j in range(4)
            if i != j
        ]
    )
    observed = counts(np.array([4 * i + j for i, j in pairs]), 16)[
        [4 * i + j for i in range(4) for j in range(4) if i != j]
    ]
    assert goodness_of_fit(observed, expected).chi2_pvalue > 1e-3


def test_dampening_refuses_a_nan_sensitivity_but_takes_an_infinite_delta2():
    """Δ2 = ∞ (k-means: not derived) leaves Δ1; before, a NaN Δ1 gave a NaN dampening factor."""
    assert eem.dampening_factor(2.0, math.inf) == 2.0
    with pytest.raises(ValueError, match="delta1 must be non-negative and finite, got nan"):
        eem.dampening_factor(math.nan, 56.0)
    with pytest.raises(ValueError, match=r"delta2 must be non-negative \(inf allowed\), got nan"):
        eem.dampening_factor(128.0, math.nan)
