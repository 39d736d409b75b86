"""Tests of :mod:`dpreplication.mechanisms.additive` (truncated-Laplacian spec §10, checks 1–6, 9
and 11): the truncated Laplacian of Geng, Ding, Guo & Kumar (Def. 3), the analytic and classic
Gaussian and the Laplace mechanism. Its docstrings state that the truncated Laplacian is
(ε, δ)-DP for 0 < δ < ½ (Thm 1, tight at ``|d| = Δ``, its privacy profile flat at δ for ε' ≥ ε),
that the analytic Gaussian's σ is the smallest for which ``N(0, σ²)`` is (ε, δ)-DP (Balle & Wang
2018, Thm 8), and that ``Laplace(Δ/ε)`` is ε-DP; its density, moments, tail, quantile and sampler
formulas are checked against quadrature, mpmath at 50 digits and the optional libraries."""

import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dpreplication import oracles
from dpreplication.accounting.hockey_stick import audit_noise_privacy
from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms.additive import laplace_mechanism
from dpreplication.workflow_config import profile_config

CONFIG = profile_config("default", Path(__file__).resolve().parents[2])["truncated_laplace"]

EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
DELTAS = (0.3, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10)
GRID = [(e, d) for e in EPSILONS for d in DELTAS]


def shape(epsilon, delta, sensitivity=1.0):
    cal = add.calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return float(cal.scale), float(cal.bound)


def quad(f, a, b):
    return integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-13, limit=200)[0]


# --------------------------------------------------------------------------- 1–3 density, moments, values


def test_1_density_integrates_to_one_and_edge_block_has_mass_delta():
    for eps, dlt in GRID:
        lam, big_a = shape(eps, dlt)

        def pdf(x):
            return add.truncated_laplace_pdf(x, lam, big_a)

        assert 2 * quad(pdf, 0.0, big_a) == pytest.approx(1.0, rel=1e-12, abs=0), (eps, dlt)
        assert quad(pdf, big_a - 1.0, big_a) == pytest.approx(dlt, rel=1e-10, abs=0), (eps, dlt)


def test_1_normaliser_matches_definition_3():
    for eps, dlt in GRID:
        expected = eps * (math.expm1(eps) + 2 * dlt) / (2 * math.expm1(eps))
        assert add.truncated_laplace_normaliser(eps, dlt) == pytest.approx(expected, rel=1e-13)
        assert add.truncated_laplace_pdf(0.0, *shape(eps, dlt)) == pytest.approx(expected, rel=1e-13)


def test_2_closed_form_moments_equal_quadrature():
    for eps, dlt in GRID:
        lam, big_a = shape(eps, dlt)
        amplitude = 2 * quad(lambda x: x * add.truncated_laplace_pdf(x, lam, big_a), 0.0, big_a)
        power = 2 * quad(lambda x: x * x * add.truncated_laplace_pdf(x, lam, big_a), 0.0, big_a)
        assert add.truncated_laplace_amplitude(eps, dlt) == pytest.approx(amplitude, rel=1e-10), (eps, dlt)
        assert add.truncated_laplace_power(eps, dlt) == pytest.approx(power, rel=1e-10), (eps, dlt)


def test_2_tail_cdf_and_quantile_are_consistent():
    lam, big_a = shape(1.0, 1e-6)
    x = np.linspace(0.0, big_a, 101)
    expected = np.array([quad(lambda t: add.truncated_laplace_pdf(t, lam, big_a), xi, big_a) for xi in x[::10]])
    np.testing.assert_allclose(add.truncated_laplace_tail(x[::10], lam, big_a), expected, rtol=1e-9, atol=1e-18)
    p = np.concatenate([[0.0, 1e-300, 1e-12], np.linspace(0.001, 0.999, 99), [1 - 1e-12, 1.0]])
    q = add.truncated_laplace_quantile(p, lam, big_a)
    assert np.all(np.abs(q) <= big_a) and np.all(np.diff(q) >= 0)
    np.testing.assert_allclose(add.truncated_laplace_cdf(q, lam, big_a), p, rtol=1e-9, atol=1e-15)
    assert add.truncated_laplace_quantile(0.0, lam, big_a) == -big_a


def test_3_reference_values_and_diffprivlib_bound():
    assert add.truncated_laplace_bound(1, 1e-6) == pytest.approx(13.6636894, abs=1e-6)
    assert add.truncated_laplace_amplitude(1, 1e-6) == pytest.approx(0.99998410, abs=1e-8)
    assert add.truncated_laplace_power(1, 1e-6) == pytest.approx(1.99975089, abs=1e-8)
    assert add.truncated_laplace_bound(1, 1e-2) == pytest.approx(4.46492018, abs=1e-8)
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    for eps, dlt in [(1.0, 1e-2), (1.0, 1e-6), (0.1, 0.3), (10.0, 1e-10)]:
        bound = oracles.diffprivlib_truncated_laplace_bound(eps, dlt)
        assert bound == pytest.approx(add.truncated_laplace_bound(eps, dlt), rel=1e-12)


def test_validation_rejects_out_of_range_parameters():
    for eps, dlt in [(1.0, 0.5), (1.0, 0.0), (0.0, 0.1), (-1.0, 0.1), (np.inf, 0.1), (1.0, np.nan)]:
        with pytest.raises(ValueError):
            add.calibrate_truncated_laplace(eps, dlt)
    with pytest.raises(ValueError):
        add.analytic_gaussian_sigma(1.0, 1.0)
    with pytest.raises(ValueError):
        add.truncated_laplace_amplitude(1.0, 0.1, sensitivity=0.0)
    with pytest.raises(ValueError):
        add.truncated_laplace_quantile(1.5, 1.0, 2.0)


def test_series_coefficients_match_spec():
    np.testing.assert_allclose(add._G_SERIES[1:6], [1 / 2, -1 / 3, 1 / 4, -1 / 5, 1 / 6], rtol=1e-15)
    np.testing.assert_allclose(add._H_SERIES[2:7], [1 / 3, -5 / 12, 13 / 30, -77 / 180, 29 / 70], rtol=1e-15)
    mp.mp.dps = 50
    for r in [1e-9, 1e-4, 0.05, 0.099, 0.101, 0.5, 10.0, 1e30]:
        big_l = mp.log1p(mp.mpf(r))
        assert add.amplitude_shape_g(r) == pytest.approx(float(1 - big_l / r), rel=2e-14)
        assert add.power_shape_h(r) == pytest.approx(float(2 - (big_l**2 + 2 * big_l) / r), rel=2e-13)


# --------------------------------------------------------------------------- 4 privacy


AUDIT_POINTS = [(1.0, 1e-6), (0.1, 1e-3), (3.0, 1e-2), (0.5, 0.2)]


@pytest.mark.parametrize("eps, dlt", AUDIT_POINTS)
def test_4_numerical_dp_audit_holds_and_is_tight(eps, dlt):
    lam, big_a = shape(eps, dlt)
    audit = audit_noise_privacy(
        lambda x: add.truncated_laplace_pdf(x, lam, big_a),
        eps,
        dlt,
        (-big_a, big_a),
        shifts_per_side=20,
        n_points=2_000_000,
    )
    assert audit.satisfied
    assert audit.max_hockey_stick <= dlt * (1 + 1e-4)
    expected = dlt * np.expm1(eps * np.abs(audit.shifts)) / np.expm1(eps)
    assert np.max(np.abs(audit.hockey_stick - expected)) <= 1e-4 * dlt
    assert abs(audit.argmax_shift) == pytest.approx(1.0)
    loose = audit_noise_privacy(
        lambda x: add.truncated_laplace_pdf(x, lam, big_a),
        0.9 * eps,
        dlt,
        (-big_a, big_a),
        shifts_per_side=20,
        n_points=2_000_000,
    )
    assert not loose.satisfied and loose.hockey_stick[-1] > dlt


def test_4_tightness_value_at_half_and_point_two():
    lam, big_a = shape(0.5, 0.2)
    assert add.truncated_laplace_hockey_stick(0.45, 1.0, lam, big_a) / 0.2 == pytest.approx(1.0756, abs=5e-4)


def test_4_wrong_bound_computed_with_half_epsilon_fails_the_audit():
    eps, dlt = 1.0, 1e-6
    lam = 1.0 / eps
    wrong_bound = lam * math.log1p(math.expm1(eps / 2) / (2 * dlt))
    audit = audit_noise_privacy(
        lambda x: add.truncated_laplace_pdf(x, lam, wrong_bound),
        eps,
        dlt,
        (-wrong_bound, wrong_bound),
        n_points=400_000,
    )
    assert not audit.satisfied
    assert audit.max_hockey_stick == pytest.approx(dlt * (math.exp(eps / 2) + 1), rel=1e-3)


def test_4_exact_profile_formula_matches_spec_and_is_flat():
    for eps, dlt in GRID:
        lam, big_a = shape(eps, dlt)
        d = np.linspace(-1, 1, 9)
        np.testing.assert_allclose(
            add.truncated_laplace_hockey_stick(eps, d, lam, big_a),
            dlt * np.expm1(eps * np.abs(d)) / np.expm1(eps),
            rtol=1e-10,
            atol=1e-300,
        )
        flat = add.truncated_laplace_privacy_profile(eps * np.array([1.0, 1.5, 3.0, 10.0]), eps, dlt)
        np.testing.assert_allclose(flat, dlt, rtol=1e-10)


def test_4_exact_profile_below_epsilon_matches_audit():
    for eps, dlt in [(1.0, 1e-3), (0.5, 0.2), (3.0, 1e-2)]:
        lam, big_a = shape(eps, dlt)
        for eps_prime in (0.0, 0.3 * eps, 0.9 * eps):
            audit = audit_noise_privacy(
                lambda x: add.truncated_laplace_pdf(x, lam, big_a),
                eps_prime,
                dlt,
                (-big_a, big_a),
                shifts_per_side=4,
                n_points=1_000_000,
            )
            exact = add.truncated_laplace_hockey_stick(eps_prime, audit.shifts, lam, big_a)
            np.testing.assert_allclose(audit.hockey_stick, exact, rtol=0, atol=2e-5 * dlt + 1e-9)


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
    pytest.importorskip("dp_accounting.pld.accountant", reason="the oracle dp_accounting is absent (extra 'oracles')")
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


# --------------------------------------------------------------------------- 9 series


def test_9_series_regression_naive_power_is_wrong():
    eps, dlt = 1e-7, 0.05
    lam = 1 / eps
    big_a = lam * math.log1p(math.expm1(eps) / (2 * dlt))
    naive = 2 * lam**2 - 2 * dlt / math.expm1(eps) * (big_a**2 + 2 * lam * big_a)
    assert abs(naive - 1 / (12 * dlt**2)) > 0.01
    assert add.truncated_laplace_power(eps, dlt) == pytest.approx(1 / (12 * dlt**2), abs=0.01)


# --------------------------------------------------------------------------- 11 sampler


@pytest.mark.parametrize("eps, dlt", [(1.0, 1e-6), (0.1, 1e-6), (0.5, 1e-2), (5.0, 1e-3)])
def test_11_monte_carlo_moments(eps, dlt):
    rng = np.random.default_rng(20200826)
    lam, big_a = shape(eps, dlt)
    x = add.sample_truncated_laplace(rng, lam, big_a, 1_000_000)
    assert np.max(np.abs(x)) <= big_a
    for values, exact in (
        (np.abs(x), add.truncated_laplace_amplitude(eps, dlt)),
        (x * x, add.truncated_laplace_power(eps, dlt)),
    ):
        se = values.std(ddof=1) / math.sqrt(values.size)
        assert abs(values.mean() - exact) <= 4 * se


def test_11_kolmogorov_smirnov_audit_and_determinism():
    lam, big_a = shape(0.5, 1e-2)
    samples = add.sample_truncated_laplace(np.random.default_rng(7), lam, big_a, 200_000)
    result = stats.kstest(samples, lambda x: add.truncated_laplace_cdf(x, lam, big_a))
    assert result.pvalue > 1e-3
    again = add.sample_truncated_laplace(np.random.default_rng(7), lam, big_a, 200_000)
    np.testing.assert_array_equal(samples, again)
    edge_mass = np.mean(samples > big_a - 1.0)
    assert edge_mass == pytest.approx(1e-2, abs=4 * math.sqrt(1e-2 / samples.size))


def test_11_diffprivlib_laplace_bounded_noise_matches_closed_form():
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    eps, dlt = 1.0, 1e-6
    draws = np.abs(oracles.diffprivlib_truncated_laplace_samples(eps, dlt, 20_000, seed=11))
    assert np.all(draws <= add.truncated_laplace_bound(eps, dlt))
    se = draws.std(ddof=1) / math.sqrt(draws.size)
    assert abs(draws.mean() - add.truncated_laplace_amplitude(eps, dlt)) <= 4 * se


# --------------------------------------------------------------------------- the Laplace mechanism


def ks_laplace(samples, scale):
    return stats.kstest(samples, stats.laplace(scale=scale).cdf).pvalue


def test_laplace_mechanism_is_reused_with_the_l1_sensitivity_scale():
    rng = np.random.default_rng(71)
    noise = laplace_mechanism(np.zeros(50_000), 0.5, rng, sensitivity=3.0)
    assert ks_laplace(noise, 6.0) > 1e-3 and ks_laplace(noise, 6.6) < 1e-6
