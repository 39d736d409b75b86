"""Tests of :mod:`dpreplication.optimisation.noise_lp`, the linear-programming lower bound on the
optimal (ε, δ)-DP noise cost (truncated-Laplacian spec §9 E2; check 12). Its docstrings state that
the binned LP's value is a lower bound on V* (D*) that increases with the resolution N, so it lies
between the paper's lower and upper bounds, with Richardson extrapolation of two resolutions still
below the upper bound; that keeping only the shift k = N is a much weaker relaxation; and that the
binned pmf meets every shift's (ε, δ) constraint. The SciPy and cvxpy backends agree. Its scale
invariance is checked with the mechanisms' in ``tests/papers/test_truncated_laplace.py``."""

import math

import numpy as np
import pytest

from dpreplication.mechanisms import bounds
from dpreplication.optimisation.noise_lp import optimal_noise_lower_bound, richardson_extrapolation


def test_12_lp_lower_bound():
    amplitude = optimal_noise_lower_bound(1.0, 1e-3, 10, "amplitude")
    power = optimal_noise_lower_bound(1.0, 1e-3, 10, "power")
    assert amplitude.value == pytest.approx(0.90335, abs=2e-4)
    assert power.value == pytest.approx(1.75705, abs=5e-4)
    assert bounds.amplitude_lower_bound(1, 1e-3) <= amplitude.value <= bounds.amplitude_upper_bound(1, 1e-3)
    assert bounds.power_lower_bound(1, 1e-3) <= power.value <= bounds.power_upper_bound(1, 1e-3)
    assert amplitude.pmf.sum() == pytest.approx(1.0, abs=1e-9) and amplitude.edge_mass < 1e-6
    finer = optimal_noise_lower_bound(1.0, 1e-3, 20, "amplitude")
    assert finer.value > amplitude.value
    estimate = richardson_extrapolation(amplitude.value, finer.value)
    assert finer.value < estimate < bounds.amplitude_upper_bound(1, 1e-3)
    single = optimal_noise_lower_bound(1.0, 1e-3, 10, "amplitude", shifts="sensitivity")
    assert single.value < amplitude.value - 0.01


def test_12_lp_backends_agree_and_binned_pmf_is_private():
    pytest.importorskip("cvxpy", reason="the reference solver is absent")
    scipy_result = optimal_noise_lower_bound(2.0, 1e-2, 6, "amplitude")
    cvxpy_result = optimal_noise_lower_bound(2.0, 1e-2, 6, "amplitude", backend="cvxpy", solver="CLARABEL")
    assert cvxpy_result.value == pytest.approx(scipy_result.value, rel=1e-5)
    p = scipy_result.pmf
    for k in range(1, 7):
        shifted = np.concatenate([p[k:], np.zeros(k)])
        assert np.maximum(p - math.exp(2.0) * shifted, 0).sum() <= 1e-2 * (1 + 1e-6)
