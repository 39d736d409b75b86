"""Quadrature at scale: Gauss–Legendre rules beyond the eigenvalue method, and the exact
permute-and-flip pmf evaluated with power series for the coins far from the top."""

import numpy as np
import pytest

from dpreplication.mechanisms.selection import _flip_integral, flip_probabilities
from dpreplication.numerics import EIGENVALUE_NODES, _legendre_newton, gauss_legendre_unit


@pytest.mark.parametrize("n", [1, 2, 7, 64, 501])
def test_newton_rule_equals_the_eigenvalue_rule(n):
    nodes, weights = _legendre_newton(n)
    reference_nodes, reference_weights = np.polynomial.legendre.leggauss(n)
    np.testing.assert_allclose(nodes, reference_nodes, rtol=0, atol=4e-16)
    np.testing.assert_allclose(weights, reference_weights, rtol=1e-8)  # leggauss' own extreme weights: ~1e-9


def test_large_rules_integrate_polynomials_of_degree_2n_minus_1_exactly():
    n = EIGENVALUE_NODES + 1
    nodes, weights = gauss_legendre_unit(n)
    assert nodes.size == n and np.all(np.diff(nodes) > 0) and 0 < nodes[0] and nodes[-1] < 1
    for degree in (0, 1, 10, 1000, 2 * n - 1):
        assert weights @ nodes**degree == pytest.approx(1 / (degree + 1), rel=1e-12), degree


def direct_flip_integral(p):
    """The defining formula, evaluated term by term (O(k · nodes) memory)."""
    u, w = gauss_legendre_unit(p.size // 2 + 2)
    log_factors = np.log1p(-np.outer(u, p))
    return p * (w @ np.exp(log_factors.sum(axis=1, keepdims=True) - log_factors))


@pytest.mark.parametrize("case", range(40))
def test_series_evaluation_equals_the_direct_formula(case):
    rng = np.random.default_rng(case)
    k = int(rng.integers(1, 300))
    scores = [rng.normal(0, 10, k), rng.integers(0, 4, k).astype(float), np.zeros(k), rng.exponential(3, k)][case % 4]
    p = flip_probabilities(scores, float(rng.choice([0.01, 0.3, 1.0, 8.0])))
    np.testing.assert_allclose(_flip_integral(p), direct_flip_integral(p), rtol=1e-12, atol=1e-300)


def test_a_hundred_thousand_candidates_sum_to_one():
    scores = np.random.default_rng(0).normal(0, 50, 100_000)
    pmf = _flip_integral(flip_probabilities(scores, 1.0))
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12) and np.argmax(pmf) == np.argmax(scores)
