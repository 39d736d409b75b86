"""Tests of :mod:`dpreplication.mechanisms.noise_comparison` (truncated-Laplacian spec §10, check 8).
Its docstrings state the cost ratios ``R_V = V_up / (σ_aG √(2/π))`` and ``R_D = D_up / σ_aG²`` of
the truncated Laplacian over the analytic Gaussian at the same (ε, δ) (Geng et al., Figs 2–3),
free of the sensitivity Δ: below 1, the truncated Laplacian adds less noise."""

import math

import numpy as np
import pytest
from scipy import optimize

from dpreplication.mechanisms import noise_comparison as nc

# --------------------------------------------------------------------------- 8 ratios


def bounded_max(ratio, dlt, lo, hi):
    result = optimize.minimize_scalar(
        lambda t: -float(ratio(math.exp(t), dlt)),
        bounds=(math.log(lo), math.log(hi)),
        method="bounded",
        options={"xatol": 1e-8},
    )
    return math.exp(result.x), -result.fun


def test_8_ratios_below_one_and_their_maxima():
    eps, dlt = np.meshgrid(np.logspace(-3, 2, 60), np.logspace(-12, np.log10(0.35), 40))
    assert np.all(nc.amplitude_ratio(eps, dlt) < 1) and np.all(nc.power_ratio(eps, dlt) < 1)
    arg, top = bounded_max(nc.amplitude_ratio, 0.1, 0.05, 3.0)
    assert top == pytest.approx(0.8987, abs=5e-4) and arg == pytest.approx(0.336, abs=0.01)
    arg, top = bounded_max(nc.power_ratio, 0.1, 0.05, 3.0)
    assert top == pytest.approx(0.7681, abs=5e-4) and arg == pytest.approx(0.557, abs=0.01)
    _, top = bounded_max(nc.amplitude_ratio, 0.45, 0.3, 5.0)
    assert top > 1 and top == pytest.approx(1.027, abs=1e-3)


@pytest.mark.parametrize("delta", [0.0, 0.5, math.nan])
def test_epsilon_limits_refuse_a_delta_outside_their_range(delta):
    """Before, ``δ = 0.5`` and NaN went through (the ratios are defined for ``0 < δ < ½`` only)."""
    for limit in (nc.amplitude_ratio_epsilon_limit, nc.power_ratio_epsilon_limit):
        with pytest.raises(ValueError, match=rf"delta must lie in \(0, 0.5\), got {delta}"):
            limit(delta)
