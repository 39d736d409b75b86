import numpy as np
import pytest

from dpreplication.statistics import (
    binomial_z_scores,
    goodness_of_fit,
    homogeneity,
    total_variation,
    tv_null_quantiles,
    wilson_interval,
)


def test_small_cells_are_pooled():
    pmf = np.array([0.5, 0.49, 0.005, 0.005])
    fit = goodness_of_fit([50, 49, 1, 0], pmf)
    assert fit.dof == 2 and fit.chi2_pvalue > 0.5


def test_impossible_outcome_rejects():
    assert goodness_of_fit([10, 10, 1], [0.5, 0.5, 0.0]).chi2_pvalue == 0.0


def test_homogeneity_detects_different_samples():
    assert homogeneity([500, 500], [900, 100])[1] < 1e-10
    assert homogeneity([500, 500], [505, 495])[1] > 0.5


def test_tv_null_band_matches_the_analytic_mean():
    """Spec §4: Q5, ε=1, n=2e5 → E[TV] ≈ ½ Σ sqrt(2 p(1−p)/(π n)) = 1.59e-3, median ≈ 1.53e-3."""
    pmf = np.array([0.451971711148, 0.217675568347, 0.217675568347, 0.070757994965, 0.041919157192])
    median = tv_null_quantiles(pmf, 200_000, [0.5], 3000, np.random.default_rng(0))[0]
    assert median == pytest.approx(1.53e-3, rel=0.05)
    assert total_variation([1, 0], [0, 1]) == 1.0


def test_wilson_interval_contains_the_estimate():
    low, high = wilson_interval(np.array([0, 50, 100]), 100, 0.99)
    assert low[0] == 0 and high[2] == pytest.approx(1.0) and low[1] < 0.5 < high[1]


def test_binomial_z_scores():
    z = binomial_z_scores([0.5, 0.3, 1.0, 0.9], [0.5, 0.2, 1.0, 1.0], 100)
    np.testing.assert_allclose(z[:2], [0.0, 0.1 / np.sqrt(0.2 * 0.8 / 100)])
    assert z[2] == 0.0 and z[3] == np.inf  # p = 1: every trial must succeed
