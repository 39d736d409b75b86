"""Tests of :mod:`dpreplication.mechanisms.additive` (truncated-Laplacian spec §10, checks 4–6):
the analytic and classic Gaussian and the Laplace mechanism. Its docstrings state that the analytic
Gaussian's σ is the smallest for which ``N(0, σ²)`` is (ε, δ)-DP (Balle & Wang 2018, Thm 8), and
that ``Laplace(Δ/ε)`` is ε-DP; their privacy profiles and calibrations are checked against
quadrature, mpmath at 50 digits and the optional libraries. The truncated Laplacian of Geng, Ding,
Guo & Kumar is tested in ``test_truncated_laplace_mechanism.py``."""

import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dpreplication import oracles
from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms.additive import laplace_mechanism
from dpreplication.pipeline.config import profile_config

CONFIG = profile_config("default", Path(__file__).resolve().parents[2])["truncated_laplace"]


# --------------------------------------------------------------------------- 4 privacy


def test_4_laplace_and_gaussian_profiles():
    eps = 1.0
    for eps_prime in (0.0, 0.4, 0.99):
        density_gap = integrate.quad(
            lambda x: max(0.0, 0.5 * math.exp(-abs(x)) - math.exp(eps_prime) * 0.5 * math.exp(-abs(x + 1))),
            -40,
            40,
            points=[-1.0, (eps_prime - 1) / 2, 0.0],
            epsabs=0,
            epsrel=1e-13,
            limit=200,
        )[0]
        assert add.laplace_privacy_profile(eps_prime, eps) == pytest.approx(density_gap, rel=1e-9)
    assert add.laplace_privacy_profile(1.5, eps) == 0.0
    sigma = add.analytic_gaussian_sigma(1.0, 1e-6)
    assert add.gaussian_privacy_profile(1.0, sigma) == pytest.approx(1e-6, rel=1e-9)
    assert add.gaussian_privacy_profile(2.0, sigma) < 1e-7


# --------------------------------------------------------------------------- 5–6 Gaussian calibration


def mp_gaussian_delta(sigma, eps):
    mp.mp.dps = 50
    s, e = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def test_5_analytic_gaussian_reference_values():
    assert add.analytic_gaussian_sigma(1, 1e-6) == pytest.approx(4.22467889, abs=1e-7)
    assert add.analytic_gaussian_sigma(0.1, 1e-6) == pytest.approx(36.3046904, abs=1e-6)
    assert add.analytic_gaussian_sigma(5, 1e-3) == pytest.approx(0.68984233, abs=1e-8)
    assert add.analytic_gaussian_sigma(10, 1e-10) == pytest.approx(0.68304397, abs=1e-8)


def test_5_sigma_solves_the_balle_wang_condition_in_high_precision():
    points = [
        (1.0, 1e-6),
        (0.1, 1e-6),
        (5.0, 1e-3),
        (10.0, 1e-10),
        (100.0, 1e-12),
        (1e-3, 1e-12),
        (1e-3, 0.4),
        (0.01, 0.1),
        (50.0, 0.3),
    ]
    eps = np.array([p[0] for p in points])
    dlt = np.array([p[1] for p in points])
    sigma = add.analytic_gaussian_sigma(eps, dlt)
    for s, e, d in zip(sigma, eps, dlt):
        assert float(mp_gaussian_delta(s, e)) == pytest.approx(d, rel=1e-9), (e, d)


def test_5_vectorised_solver_matches_algorithm_1_and_scalar_brentq():
    eps = np.array([0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 0.003, 30.0])
    dlt = np.array([1e-2, 1e-6, 1e-5, 1e-2, 1e-4, 1e-3, 1e-10, 0.2, 1e-12])
    sigma = add.analytic_gaussian_sigma(eps, dlt)
    for s, e, d in zip(sigma, eps, dlt):
        assert add.analytic_gaussian_sigma_algorithm1(e, d) == pytest.approx(s, rel=1e-10), (e, d)
        root = optimize.brentq(
            lambda t: add.log_gaussian_hockey_stick(e, 1.0, math.exp(t)) - math.log(d), -40, 40, xtol=1e-15, rtol=1e-15
        )
        assert math.exp(root) == pytest.approx(s, rel=1e-10), (e, d)


def test_5_vectorised_solver_is_robust_on_a_wide_grid():
    eps, dlt = np.meshgrid(np.logspace(-3, 2, 40), np.logspace(-12, np.log10(0.49), 30))
    sigma = add.analytic_gaussian_sigma(eps, dlt)
    assert np.all(np.isfinite(sigma)) and np.all(sigma > 0)
    np.testing.assert_allclose(add.log_gaussian_hockey_stick(eps, 1.0, sigma), np.log(dlt), atol=1e-9)
    assert np.all(np.diff(sigma, axis=0) < 0) and np.all(np.diff(sigma, axis=1) < 0)


LIBRARY_POINTS = [tuple(point) for point in CONFIG["library_cross_check"]["points"]]


def test_6_dp_accounting_oracles():
    for eps, dlt in LIBRARY_POINTS:
        ours = add.analytic_gaussian_sigma(eps, dlt)
        assert oracles.dp_accounting_gaussian_sigma(eps, dlt) == pytest.approx(ours, rel=1e-9)
        searched = oracles.dp_accounting_pld_gaussian_sigma(eps, dlt)
        assert ours * (1 - 1e-12) <= searched <= ours * (1 + 1e-6)


def test_6_autodp_oracle():
    pytest.importorskip("autodp.rdp_acct", reason="the oracle autodp is absent (extra 'oracles')")
    for eps, dlt in LIBRARY_POINTS:
        sigma = oracles.autodp_gaussian_sigma(eps, dlt)
        assert sigma == pytest.approx(add.analytic_gaussian_sigma(eps, dlt), rel=1e-4)


def test_6_diffprivlib_oracle():
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    for eps, dlt in LIBRARY_POINTS:
        sigma = oracles.diffprivlib_gaussian_sigma(eps, dlt)
        assert sigma == pytest.approx(add.analytic_gaussian_sigma(eps, dlt), rel=1e-4)


# --------------------------------------------------------------------------- the Laplace mechanism


def ks_laplace(samples, scale):
    return stats.kstest(samples, stats.laplace(scale=scale).cdf).pvalue


def test_laplace_mechanism_is_reused_with_the_l1_sensitivity_scale():
    rng = np.random.default_rng(71)
    noise = laplace_mechanism(np.zeros(50_000), 0.5, rng, sensitivity=3.0)
    assert ks_laplace(noise, 6.0) > 1e-3 and ks_laplace(noise, 6.6) < 1e-6


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: add.gaussian_privacy_profile(math.nan, 2.0), "epsilon_prime must be finite, got nan"),
        (lambda: add.laplace_privacy_profile(math.inf, 1.0), "epsilon_prime must be finite, got inf"),
        (lambda: add.log_gaussian_hockey_stick([0.5, math.nan], 1.0, 1.0), "epsilon_prime must be finite"),
        (lambda: add.gaussian_pdf(0.0, math.nan), "sigma must be positive and finite, got nan"),
        (lambda: add.laplace_pdf(0.0, -1.0), "scale must be positive and finite, got -1.0"),
    ],
)
def test_nan_and_infinite_arguments_raise_naming_the_argument(call, message):
    """Before, a NaN or infinite ε' and a NaN σ or scale gave NaN profiles and densities."""
    with pytest.raises(ValueError, match=message):
        call()
