"""Tests of :mod:`dpreplication.mechanisms.truncated_laplace` (truncated-Laplacian spec §10, checks
1–4, 9 and 11): the truncated Laplacian of Geng, Ding, Guo & Kumar (Def. 3). Its docstrings state
that it is (ε, δ)-DP for 0 < δ < ½ (Thm 1, tight at ``|d| = Δ``, its privacy profile flat at δ for
ε' ≥ ε); its density, moments, tail, quantile and sampler formulas are checked against quadrature,
mpmath at 50 digits and the optional libraries. The Laplace and Gaussian mechanisms are tested in
``test_additive.py``."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from dpreplication import oracles
from dpreplication.accounting.hockey_stick import audit_noise_privacy
from dpreplication.mechanisms import truncated_laplace as tl_mechanism
from dpreplication.mechanisms.additive import analytic_gaussian_sigma

EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
DELTAS = (0.3, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10)
GRID = [(e, d) for e in EPSILONS for d in DELTAS]


def shape(epsilon, delta, sensitivity=1.0):
    cal = tl_mechanism.calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return float(cal.scale), float(cal.bound)


def quad(f, a, b):
    return integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-13, limit=200)[0]


# --------------------------------------------------------------------------- 1–3 density, moments, values


def test_1_density_integrates_to_one_and_edge_block_has_mass_delta():
    for eps, dlt in GRID:
        lam, big_a = shape(eps, dlt)

        def pdf(x):
            return tl_mechanism.truncated_laplace_pdf(x, lam, big_a)

        assert 2 * quad(pdf, 0.0, big_a) == pytest.approx(1.0, rel=1e-12, abs=0), (eps, dlt)
        assert quad(pdf, big_a - 1.0, big_a) == pytest.approx(dlt, rel=1e-10, abs=0), (eps, dlt)


def test_1_normaliser_matches_definition_3():
    for eps, dlt in GRID:
        expected = eps * (math.expm1(eps) + 2 * dlt) / (2 * math.expm1(eps))
        assert tl_mechanism.truncated_laplace_normaliser(eps, dlt) == pytest.approx(expected, rel=1e-13)
        assert tl_mechanism.truncated_laplace_pdf(0.0, *shape(eps, dlt)) == pytest.approx(expected, rel=1e-13)


def test_2_closed_form_moments_equal_quadrature():
    for eps, dlt in GRID:
        lam, big_a = shape(eps, dlt)
        amplitude = 2 * quad(lambda x: x * tl_mechanism.truncated_laplace_pdf(x, lam, big_a), 0.0, big_a)
        power = 2 * quad(lambda x: x * x * tl_mechanism.truncated_laplace_pdf(x, lam, big_a), 0.0, big_a)
        assert tl_mechanism.truncated_laplace_amplitude(eps, dlt) == pytest.approx(amplitude, rel=1e-10), (eps, dlt)
        assert tl_mechanism.truncated_laplace_power(eps, dlt) == pytest.approx(power, rel=1e-10), (eps, dlt)


def test_2_tail_cdf_and_quantile_are_consistent():
    lam, big_a = shape(1.0, 1e-6)
    x = np.linspace(0.0, big_a, 101)
    expected = np.array(
        [quad(lambda t: tl_mechanism.truncated_laplace_pdf(t, lam, big_a), xi, big_a) for xi in x[::10]]
    )
    np.testing.assert_allclose(
        tl_mechanism.truncated_laplace_tail(x[::10], lam, big_a), expected, rtol=1e-9, atol=1e-18
    )
    p = np.concatenate([[0.0, 1e-300, 1e-12], np.linspace(0.001, 0.999, 99), [1 - 1e-12, 1.0]])
    q = tl_mechanism.truncated_laplace_quantile(p, lam, big_a)
    assert np.all(np.abs(q) <= big_a) and np.all(np.diff(q) >= 0)
    np.testing.assert_allclose(tl_mechanism.truncated_laplace_cdf(q, lam, big_a), p, rtol=1e-9, atol=1e-15)
    assert tl_mechanism.truncated_laplace_quantile(0.0, lam, big_a) == -big_a


def test_3_reference_values_and_diffprivlib_bound():
    assert tl_mechanism.truncated_laplace_bound(1, 1e-6) == pytest.approx(13.6636894, abs=1e-6)
    assert tl_mechanism.truncated_laplace_amplitude(1, 1e-6) == pytest.approx(0.99998410, abs=1e-8)
    assert tl_mechanism.truncated_laplace_power(1, 1e-6) == pytest.approx(1.99975089, abs=1e-8)
    assert tl_mechanism.truncated_laplace_bound(1, 1e-2) == pytest.approx(4.46492018, abs=1e-8)
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    for eps, dlt in [(1.0, 1e-2), (1.0, 1e-6), (0.1, 0.3), (10.0, 1e-10)]:
        bound = oracles.diffprivlib_truncated_laplace_bound(eps, dlt)
        assert bound == pytest.approx(tl_mechanism.truncated_laplace_bound(eps, dlt), rel=1e-12)


def test_validation_rejects_out_of_range_parameters():
    for eps, dlt in [(1.0, 0.5), (1.0, 0.0), (0.0, 0.1), (-1.0, 0.1), (np.inf, 0.1), (1.0, np.nan)]:
        with pytest.raises(ValueError):
            tl_mechanism.calibrate_truncated_laplace(eps, dlt)
    with pytest.raises(ValueError):
        analytic_gaussian_sigma(1.0, 1.0)
    with pytest.raises(ValueError):
        tl_mechanism.truncated_laplace_amplitude(1.0, 0.1, sensitivity=0.0)
    with pytest.raises(ValueError):
        tl_mechanism.truncated_laplace_quantile(1.5, 1.0, 2.0)


def test_series_coefficients_match_spec():
    np.testing.assert_allclose(tl_mechanism._G_SERIES[1:6], [1 / 2, -1 / 3, 1 / 4, -1 / 5, 1 / 6], rtol=1e-15)
    np.testing.assert_allclose(tl_mechanism._H_SERIES[2:7], [1 / 3, -5 / 12, 13 / 30, -77 / 180, 29 / 70], rtol=1e-15)
    mp.mp.dps = 50
    for r in [1e-9, 1e-4, 0.05, 0.099, 0.101, 0.5, 10.0, 1e30]:
        big_l = mp.log1p(mp.mpf(r))
        assert tl_mechanism.amplitude_shape_g(r) == pytest.approx(float(1 - big_l / r), rel=2e-14)
        assert tl_mechanism.power_shape_h(r) == pytest.approx(float(2 - (big_l**2 + 2 * big_l) / r), rel=2e-13)


# --------------------------------------------------------------------------- 4 privacy


AUDIT_POINTS = [(1.0, 1e-6), (0.1, 1e-3), (3.0, 1e-2), (0.5, 0.2)]


@pytest.mark.parametrize("eps, dlt", AUDIT_POINTS)
def test_4_numerical_dp_audit_holds_and_is_tight(eps, dlt):
    lam, big_a = shape(eps, dlt)
    audit = audit_noise_privacy(
        lambda x: tl_mechanism.truncated_laplace_pdf(x, lam, big_a),
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
        lambda x: tl_mechanism.truncated_laplace_pdf(x, lam, big_a),
        0.9 * eps,
        dlt,
        (-big_a, big_a),
        shifts_per_side=20,
        n_points=2_000_000,
    )
    assert not loose.satisfied and loose.hockey_stick[-1] > dlt


def test_4_tightness_value_at_half_and_point_two():
    lam, big_a = shape(0.5, 0.2)
    assert tl_mechanism.truncated_laplace_hockey_stick(0.45, 1.0, lam, big_a) / 0.2 == pytest.approx(1.0756, abs=5e-4)


def test_4_wrong_bound_computed_with_half_epsilon_fails_the_audit():
    eps, dlt = 1.0, 1e-6
    lam = 1.0 / eps
    wrong_bound = lam * math.log1p(math.expm1(eps / 2) / (2 * dlt))
    audit = audit_noise_privacy(
        lambda x: tl_mechanism.truncated_laplace_pdf(x, lam, wrong_bound),
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
            tl_mechanism.truncated_laplace_hockey_stick(eps, d, lam, big_a),
            dlt * np.expm1(eps * np.abs(d)) / np.expm1(eps),
            rtol=1e-10,
            atol=1e-300,
        )
        flat = tl_mechanism.truncated_laplace_privacy_profile(eps * np.array([1.0, 1.5, 3.0, 10.0]), eps, dlt)
        np.testing.assert_allclose(flat, dlt, rtol=1e-10)


def test_4_exact_profile_below_epsilon_matches_audit():
    for eps, dlt in [(1.0, 1e-3), (0.5, 0.2), (3.0, 1e-2)]:
        lam, big_a = shape(eps, dlt)
        for eps_prime in (0.0, 0.3 * eps, 0.9 * eps):
            audit = audit_noise_privacy(
                lambda x: tl_mechanism.truncated_laplace_pdf(x, lam, big_a),
                eps_prime,
                dlt,
                (-big_a, big_a),
                shifts_per_side=4,
                n_points=1_000_000,
            )
            exact = tl_mechanism.truncated_laplace_hockey_stick(eps_prime, audit.shifts, lam, big_a)
            np.testing.assert_allclose(audit.hockey_stick, exact, rtol=0, atol=2e-5 * dlt + 1e-9)


# --------------------------------------------------------------------------- 9 series


def test_9_series_regression_naive_power_is_wrong():
    eps, dlt = 1e-7, 0.05
    lam = 1 / eps
    big_a = lam * math.log1p(math.expm1(eps) / (2 * dlt))
    naive = 2 * lam**2 - 2 * dlt / math.expm1(eps) * (big_a**2 + 2 * lam * big_a)
    assert abs(naive - 1 / (12 * dlt**2)) > 0.01
    assert tl_mechanism.truncated_laplace_power(eps, dlt) == pytest.approx(1 / (12 * dlt**2), abs=0.01)


# --------------------------------------------------------------------------- 11 sampler


@pytest.mark.parametrize("eps, dlt", [(1.0, 1e-6), (0.1, 1e-6), (0.5, 1e-2), (5.0, 1e-3)])
def test_11_monte_carlo_moments(eps, dlt):
    rng = np.random.default_rng(20200826)
    lam, big_a = shape(eps, dlt)
    x = tl_mechanism.sample_truncated_laplace(rng, lam, big_a, 1_000_000)
    assert np.max(np.abs(x)) <= big_a
    for values, exact in (
        (np.abs(x), tl_mechanism.truncated_laplace_amplitude(eps, dlt)),
        (x * x, tl_mechanism.truncated_laplace_power(eps, dlt)),
    ):
        se = values.std(ddof=1) / math.sqrt(values.size)
        assert abs(values.mean() - exact) <= 4 * se


def test_11_kolmogorov_smirnov_audit_and_determinism():
    lam, big_a = shape(0.5, 1e-2)
    samples = tl_mechanism.sample_truncated_laplace(np.random.default_rng(7), lam, big_a, 200_000)
    result = stats.kstest(samples, lambda x: tl_mechanism.truncated_laplace_cdf(x, lam, big_a))
    assert result.pvalue > 1e-3
    again = tl_mechanism.sample_truncated_laplace(np.random.default_rng(7), lam, big_a, 200_000)
    np.testing.assert_array_equal(samples, again)
    edge_mass = np.mean(samples > big_a - 1.0)
    assert edge_mass == pytest.approx(1e-2, abs=4 * math.sqrt(1e-2 / samples.size))


def test_11_diffprivlib_laplace_bounded_noise_matches_closed_form():
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    eps, dlt = 1.0, 1e-6
    draws = np.abs(oracles.diffprivlib_truncated_laplace_samples(eps, dlt, 20_000, seed=11))
    assert np.all(draws <= tl_mechanism.truncated_laplace_bound(eps, dlt))
    se = draws.std(ddof=1) / math.sqrt(draws.size)
    assert abs(draws.mean() - tl_mechanism.truncated_laplace_amplitude(eps, dlt)) <= 4 * se


@pytest.mark.parametrize("epsilon_prime", [math.nan, math.inf, -0.5])
def test_hockey_stick_refuses_an_epsilon_prime_out_of_range(epsilon_prime):
    """Before, NaN passed the ``ε' < 0`` check (NaN compares false) and came back as the divergence."""
    with pytest.raises(ValueError, match=f"epsilon_prime must be non-negative and finite, got {epsilon_prime}"):
        tl_mechanism.truncated_laplace_hockey_stick(epsilon_prime, 1.0, 1.0, 5.0)
    with pytest.raises(ValueError, match="shift must be finite, got nan"):
        tl_mechanism.truncated_laplace_hockey_stick(0.5, math.nan, 1.0, 5.0)
