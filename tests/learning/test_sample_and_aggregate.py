"""Tests of :mod:`dpreplication.learning.sample_and_aggregate`, GUPT given a tight output range (Mohan
et al. 2012; PrivGene spec §3.6, check 11). Its docstrings state that the rows are split into
``ℓ = ⌊n^0.4⌋`` disjoint blocks, that the clamped block outputs are averaged (L1 sensitivity
``p·(hi − lo)/ℓ``) and that Laplace noise of scale ``p·(hi − lo)/(ℓ·φ·ε)`` is added per
coordinate, a budget or a share φ out of range being refused. GUPT with its own range estimation
(:mod:`dpreplication.learning.gupt_loose`) is audited in ``tests/privacy/test_gupt_loose.py``."""

import math

import numpy as np
import pytest
from baseline_helpers import ks_laplace, synthetic

from dpreplication.learning import models
from dpreplication.learning import sample_and_aggregate as gupt


def test_11_block_counts_and_partition():
    sizes = {39_074: 68, 36_169: 66, 32_000: 63, 30_400: 62, 26_733: 58, 34_112: 65}
    assert {n: gupt.gupt_block_count(n) for n in sizes} == sizes
    blocks = gupt.gupt_partition(1003, np.random.default_rng(0))
    assert len(blocks) == gupt.gupt_block_count(1003) == 15
    assert np.array_equal(np.sort(np.concatenate(blocks)), np.arange(1003))
    assert {b.size for b in blocks} <= {1003 // 15, -(-1003 // 15)}


def test_11_aggregate_at_infinite_epsilon_is_the_mean_of_clamped_blocks():
    outputs = np.array([[7.0, -1.0], [1.0, -9.0], [-2.0, 2.0]])
    np.testing.assert_allclose(
        gupt.gupt_aggregate(outputs, (-5.0, 5.0), np.inf, np.random.default_rng(0)), [4 / 3, -4 / 3]
    )


def test_11_aggregate_noise_scale_and_sensitivity():
    rng = np.random.default_rng(51)
    outputs = rng.uniform(-6, 6, (20, 3))
    clamped_mean = np.clip(outputs, -5, 5).mean(axis=0)
    for fraction in (1.0, 1 / 3):
        scale = gupt.gupt_noise_scale(3, (-5.0, 5.0), 20, 0.5, fraction)
        assert scale == 3 * 10 / (20 * 0.5 * fraction)
        noise = (
            np.array([gupt.gupt_aggregate(outputs, (-5.0, 5.0), 0.5, rng, fraction) for _ in range(5000)])
            - clamped_mean
        )
        assert ks_laplace(noise.ravel(), scale) > 1e-3
        assert ks_laplace(noise.ravel(), 1.1 * scale) < 1e-6
    assert gupt.gupt_noise_scale(30, gupt.CENTRE_RANGE, 58, 1.0) == pytest.approx(1.03, abs=0.01)
    for row in range(20):
        replaced = outputs.copy()
        replaced[row] = rng.uniform(-100, 100, 3)
        moved = np.abs(gupt.gupt_aggregate(replaced, (-5.0, 5.0), np.inf, rng) - clamped_mean).sum()
        assert moved <= 3 * 10 / 20 + 1e-12


@pytest.mark.parametrize(
    "epsilon, fraction, message",
    [
        (math.nan, 1.0, r"epsilon must be positive \(inf allowed\), got nan"),
        (0.0, 1.0, r"epsilon must be positive \(inf allowed\), got 0.0"),
        (1.0, 2.0, r"eps_fraction must lie in \(0, 1\], got 2.0"),
        (1.0, math.nan, r"eps_fraction must lie in \(0, 1\], got nan"),
    ],
)
def test_11_aggregate_refuses_a_budget_or_share_out_of_range(epsilon, fraction, message):
    """Before, a share φ = 2 spent 2ε (half the noise), and a NaN ε gave a NaN noise scale."""
    outputs = np.zeros((20, 3))
    with pytest.raises(ValueError, match=message):
        gupt.gupt_noise_scale(3, (-5.0, 5.0), 20, epsilon, fraction)
    with pytest.raises(ValueError, match=message):
        gupt.gupt_aggregate(outputs, (-5.0, 5.0), epsilon, np.random.default_rng(0), fraction)


def test_11_block_fits_linear_and_kmeans():
    X, y01, y = synthetic(2000, 6, seed=61)
    blocks = gupt.gupt_partition(2000, np.random.default_rng(0))
    lr = gupt.logistic_block_outputs(X, y01, blocks)
    svm = gupt.svm_block_outputs(X, y, blocks)
    assert lr.shape == svm.shape == (len(blocks), 6)
    np.testing.assert_allclose(lr[0], models.fit_logistic_regression(X[blocks[0]], y01[blocks[0]], ridge=1e-6))
    rng = np.random.default_rng(2)
    T = np.clip(
        np.array([[-0.5, 0.5], [0.5, -0.5]])[rng.integers(2, size=2000)] + 0.05 * rng.normal(size=(2000, 2)), -1, 1
    )
    centres = gupt.kmeans_block_outputs(T, blocks, 2, np.random.default_rng(3), restarts=2)
    assert centres.shape == (len(blocks), 4)
    assert np.all(centres[:, 0] <= centres[:, 2])
    estimate = gupt.gupt_aggregate(centres, gupt.CENTRE_RANGE, np.inf, rng).reshape(2, 2)
    np.testing.assert_allclose(estimate, [[-0.5, 0.5], [0.5, -0.5]], atol=0.02)
    np.testing.assert_array_equal(
        gupt.sort_centres(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 1.0]])), [[0.0, 1.0], [0.0, 2.0], [1.0, 0.0]]
    )
