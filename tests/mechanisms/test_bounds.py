"""Tests of :mod:`dpreplication.mechanisms.bounds` (truncated-Laplacian spec §10, checks 9–10). Its
docstrings state the brackets ``V_low ≤ V* ≤ V_up`` and ``D_low ≤ D* ≤ D_up`` on the optimal noise
amplitude and power under (ε, δ)-DP — the upper bounds the truncated Laplacian's exact cost (Thms
2, 3), the lower bounds reconstructed (spec eqs. 11*, 12*) — and the limits of the ratios
``V_low/V_up`` and ``D_low/D_up`` as δ → 0 or ε → 0 (Thms 6, 7)."""

import math

import mpmath as mp
import numpy as np
import pytest

from dpreplication.mechanisms import bounds
from dpreplication.mechanisms import truncated_laplace as tl_mechanism

# --------------------------------------------------------------------------- 9–10 limits and bounds


def test_9_limits():
    for eps in (0.1, 0.5, 1.0):
        assert tl_mechanism.truncated_laplace_amplitude(eps, 1e-200) * eps == pytest.approx(1.0, rel=1e-9)
        assert bounds.amplitude_lower_bound(eps, 1e-200) == pytest.approx(1 / math.expm1(eps), rel=1e-9)
        assert bounds.amplitude_bound_ratio(eps, 1e-200) == pytest.approx(
            bounds.amplitude_ratio_small_delta_limit(eps), rel=1e-9
        )
    assert bounds.power_lower_bound(1, 1e-200) == pytest.approx((math.e + 1) / (math.e - 1) ** 2, abs=1e-6)
    assert bounds.power_lower_bound(1, 1e-200) == pytest.approx(1.259370, abs=1e-6)
    assert tl_mechanism.truncated_laplace_amplitude(1e-7, 0.01) == pytest.approx(25.0, abs=1e-3)
    assert tl_mechanism.truncated_laplace_power(1e-7, 0.05) == pytest.approx(1 / (12 * 0.05**2), abs=0.01)
    for dlt in (0.05, 0.01, 0.001):
        assert bounds.amplitude_bound_ratio(1e-7, dlt) == pytest.approx(1 - 2 * dlt, abs=1e-4)
        assert bounds.power_bound_ratio(1e-7, dlt) == pytest.approx(
            bounds.power_ratio_small_epsilon_limit(dlt), abs=1e-4
        )
        assert bounds.amplitude_lower_bound(1e-7, dlt) == pytest.approx(
            bounds.amplitude_lower_bound_small_epsilon_limit(dlt), rel=1e-4
        )
        n = 0.5 / dlt
        assert bounds.power_lower_bound_small_epsilon_limit(dlt) == pytest.approx((2 * n - 1) * (n - 1) / 6, rel=1e-12)
    assert bounds.amplitude_bound_ratio(1e-4, 1e-6) == pytest.approx(0.999946, abs=1e-6)
    assert bounds.power_bound_ratio(1e-4, 1e-6) == pytest.approx(0.999940, abs=1e-6)
    assert bounds.power_bound_ratio(1.0, 1e-200) == pytest.approx(bounds.power_ratio_small_delta_limit(1.0), rel=1e-9)
    joint = bounds.amplitude_upper_bound_joint_limit(1e-3, 1e-5) / tl_mechanism.truncated_laplace_amplitude(1e-3, 1e-5)
    assert abs(joint - 1) < 5e-5


def mp_lower_bounds(eps, dlt):
    mp.mp.dps = 50
    e, d = mp.mpf(eps), mp.mpf(dlt)
    c = d / mp.expm1(e)
    n = mp.log1p(mp.expm1(e) / (2 * d)) / e
    u = [(mp.mpf(1) / 2 + c) * mp.exp(-j * e) - c for j in range(1, int(mp.floor(n)) + 1)]
    return float(2 * sum(u)), float(2 * sum((2 * j - 1) * uj for j, uj in enumerate(u, start=1)))


def test_10_lower_bounds_match_direct_sums_in_high_precision():
    for eps, dlt in [
        (1.0, 1e-6),
        (0.1, 1e-3),
        (1e-6, 0.45),
        (1e-7, 0.05),
        (0.01, 0.3),
        (3.0, 1e-12),
        (30.0, 1e-4),
        (0.5, 0.4999),
    ]:
        v_low, d_low = mp_lower_bounds(eps, dlt)
        assert bounds.amplitude_lower_bound(eps, dlt) == pytest.approx(v_low, rel=1e-10), (eps, dlt)
        assert bounds.power_lower_bound(eps, dlt) == pytest.approx(d_low, rel=1e-10), (eps, dlt)


def test_10_bounds_are_ordered():
    eps, dlt = np.meshgrid(np.logspace(-3, 1.5, 60), np.logspace(-12, np.log10(0.45), 40))
    v_low, v_up = bounds.amplitude_lower_bound(eps, dlt), bounds.amplitude_upper_bound(eps, dlt)
    d_low, d_up = bounds.power_lower_bound(eps, dlt), bounds.power_upper_bound(eps, dlt)
    assert np.all(v_low >= 0) and np.all(v_low <= v_up) and np.all(d_low >= 0) and np.all(d_low <= d_up)
    assert np.all((v_up - v_low >= 0) & (v_up - v_low <= 0.5))
    for n in (5, 10, 50):
        for eps_ in (0.01, 0.1, 0.5, 1.0, 2.0):
            dlt_ = math.expm1(eps_) / (2 * math.expm1(n * eps_))
            gap = bounds.amplitude_upper_bound(eps_, dlt_) - bounds.amplitude_lower_bound(eps_, dlt_)
            assert gap == pytest.approx(1 / eps_ - 1 / math.expm1(eps_), rel=1e-9), (n, eps_)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bounds.amplitude_ratio_small_delta_limit(math.nan), "epsilon must be positive and finite, got nan"),
        (lambda: bounds.power_lower_bound_small_delta_limit(-1.0), "epsilon must be positive and finite, got -1.0"),
        (lambda: bounds.amplitude_lower_bound_small_epsilon_limit(0.5), r"delta must lie in \(0, 0.5\), got 0.5"),
        (lambda: bounds.power_ratio_small_epsilon_limit(math.nan), r"delta must lie in \(0, 0.5\), got nan"),
        (lambda: bounds.amplitude_upper_bound_joint_limit(1e-3, 1e-5, math.inf), "sensitivity must be positive"),
    ],
)
def test_limits_refuse_arguments_out_of_range(call, message):
    """Before, the closed-form limits returned NaN (or a number) for any ε, δ and Δ."""
    with pytest.raises(ValueError, match=message):
        call()
