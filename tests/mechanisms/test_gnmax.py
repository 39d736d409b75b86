"""Tests of :mod:`dpreplication.mechanisms.gnmax`. Its docstrings state that GNMax (Papernot et al.
2018) releases ``argmax_c (n_c + N(0, σ²))`` — ``(λ, λ/σ²)``-RDP, one teacher moving the counts by
√2 in L2 — and that on two classes it releases class 0 with probability ``Φ((n_0 − n_1)/(√2 σ))``
exactly. The (ε, δ) audit of GNMax at its RDP-calibrated σ is in ``tests/papers/test_darrm_prediction.py``."""

import math

import numpy as np
import pytest

from dpreplication.mechanisms import gnmax


def test_gnmax_sampler_matches_its_exact_probabilities():
    rng = np.random.default_rng(5)
    counts = np.array([[6, 5], [3, 8], [11, 0]])
    sigma, n = 8.815, 200_000
    exact = gnmax.gnmax_probability_first(counts, sigma)
    for row, p in zip(counts, exact):
        observed = np.mean(gnmax.gnmax_aggregate(np.repeat(row[None], n, axis=0), sigma, rng) == 0)
        assert abs(observed - p) <= 4.5 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("sigma", [0.0, math.nan, math.inf])
def test_both_functions_refuse_a_sigma_out_of_range(sigma):
    """Before, ``gnmax_probability_first`` returned the noiseless (σ = 0) or NaN probabilities."""
    with pytest.raises(ValueError, match=f"sigma must be positive and finite, got {sigma}"):
        gnmax.gnmax_probability_first([[3, 1]], sigma)
    with pytest.raises(ValueError, match=f"sigma must be positive and finite, got {sigma}"):
        gnmax.gnmax_aggregate([[3, 1]], sigma, np.random.default_rng(0))
