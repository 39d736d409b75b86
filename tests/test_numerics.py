"""Quadrature at scale: Gauss–Legendre rules beyond the eigenvalue method (the exact
permute-and-flip pmf that uses them is checked in ``tests/mechanisms/test_selection.py``)."""

import numpy as np
import pytest

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
