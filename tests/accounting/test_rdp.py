"""Tests of :mod:`dpreplication.accounting.rdp`: its arguments. Its docstrings state valid ranges
(``0 < δ < 1``, ``0 < q ≤ 1``, ``σ > 0``, ``ε > 0``); outside them the RDP-to-(ε, δ) conversion is
meaningless (at δ = 1 it returns a negative ε), so every function refuses them, NaN and infinities
included. Its values against Opacus and the spec are tested in ``tests/papers/test_darrm_prediction.py``
and ``tests/privacy/test_dp_sgd.py``."""

import math

import pytest

from dpreplication.accounting import rdp

SIGMA, RATE, STEPS = 10.0, 1 / 32, 96
"""A DaRRM teacher: ε ≈ 0.085 at δ = 1e-4; before, δ = 1 gave ε = −1.385."""


@pytest.mark.parametrize("delta", [1.0, 2.0, 0.0, -1e-5, math.nan, math.inf])
def test_every_conversion_to_epsilon_delta_refuses_a_delta_outside_zero_one(delta):
    message = rf"delta must lie in \(0, 1\), got {delta}"
    calls = [
        lambda: rdp.dp_sgd_epsilon(SIGMA, RATE, STEPS, delta),
        lambda: rdp.dp_sgd_epsilon(SIGMA, RATE, 0, delta),
        lambda: rdp.rdp_to_epsilon(rdp.sampled_gaussian_rdp(RATE, SIGMA, STEPS), rdp.DEFAULT_ORDERS, delta),
        lambda: rdp.calibrate_steps(0.0892, delta, SIGMA, RATE),
        lambda: rdp.calibrate_noise_multiplier(0.0892, delta, RATE, STEPS),
        lambda: rdp.gnmax_noise_scale(1.0, delta),
        lambda: rdp.gnmax_epsilon(7.0, delta, 24.5),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=message):
            call()


@pytest.mark.parametrize("target", [math.nan, math.inf, 0.0, -0.1])
def test_step_and_noise_calibrations_refuse_a_non_finite_budget(target):
    """Before, ``calibrate_steps(nan, …)`` returned 1 step (NaN passed the over-budget test) and
    ``calibrate_noise_multiplier(nan, …)`` failed inside Brent's method without naming the budget."""
    with pytest.raises(ValueError, match=f"target_epsilon must be positive and finite, got {target}"):
        rdp.calibrate_steps(target, 1e-4, SIGMA, RATE)
    with pytest.raises(ValueError, match=f"target_epsilon must be positive and finite, got {target}"):
        rdp.calibrate_noise_multiplier(target, 1e-4, RATE, STEPS)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: rdp.dp_sgd_epsilon(math.nan, RATE, STEPS, 1e-4),
            "noise_multiplier must be positive and finite, got nan",
        ),
        (lambda: rdp.dp_sgd_epsilon(SIGMA, math.nan, STEPS, 1e-4), r"sample_rate must lie in \(0, 1\], got nan"),
        (lambda: rdp.dp_sgd_epsilon(SIGMA, RATE, math.inf, 1e-4), "steps must be non-negative and finite, got inf"),
        (lambda: rdp.sampled_gaussian_rdp(RATE, -1.0, STEPS), "noise_multiplier must be positive and finite, got -1.0"),
        (lambda: rdp.calibrate_noise_multiplier(0.1, 1e-4, RATE, 0), "steps must be ≥ 1, got 0"),
        (lambda: rdp.gnmax_noise_scale(math.nan, 1e-5), "epsilon must be positive and finite, got nan"),
        (lambda: rdp.gnmax_epsilon(math.inf, 1e-5, 24.5), "sigma must be positive and finite, got inf"),
        (lambda: rdp.gnmax_epsilon(7.0, 1e-5, 1.0), "order must be > 1 and finite, got 1.0"),
    ],
)
def test_noise_rate_steps_and_orders_out_of_range_raise_naming_the_argument(call, message):
    """Before, a NaN σ passed the ``σ ≤ 0`` test and came back as a NaN ε."""
    with pytest.raises(ValueError, match=message):
        call()
