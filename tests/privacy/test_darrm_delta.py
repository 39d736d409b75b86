"""DaRRM where δ matters: Δ = 0.02–0.2, so that δ and λ are not negligible against e^{mε} − 1.

At ε = 0.1, m = 3 the budget e^{mε} − 1 = 0.35, and Δ = 0.02 gives δ = 1 − (1 − Δ)^3 = 0.059 and
λ = 1 − (1 − Δ)^11 = 0.199: a factor 2 in either moves γ_const by more than 10 %, which the tests
below see. Every expected value is computed here from the paper's formulas (App. A.1; spec §1.1),
not by the package.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, spatial

from dpreplication.accounting import privacy_verifier
from dpreplication.mechanisms import majority

K, M, EPSILON = 11, 3, 0.1


def composed(m: int, Delta: float) -> float:
    return 1 - (1 - Delta) ** m


def gamma_const_reference(K, m, epsilon, Delta):
    """App. A.1 with τ = K, λ = 1 − (1 − Δ)^K, δ = 1 − (1 − Δ)^m."""
    lam, delta = composed(K, Delta), composed(m, Delta)
    e_m, e_tau = math.exp(m * epsilon), math.exp(K * epsilon)
    return (e_m - 1 + 2 * delta) / (2 * (e_tau - e_m + (1 + e_m) * lam) / (e_tau + 1) + e_m - 1)


@pytest.mark.parametrize("Delta", [0.02, 0.05])
def test_gamma_const_reference_values_where_delta_matters(Delta):
    expected = gamma_const_reference(K, M, EPSILON, Delta)
    assert 0 < expected < 1
    np.testing.assert_allclose(majority.gamma_constant(K, M, EPSILON, Delta), expected, rtol=1e-12)
    without_delta = gamma_const_reference(K, M, EPSILON, 0.0)
    assert abs(expected - without_delta) > 0.05 * expected  # δ and λ really matter here


def test_gamma_const_negative_control(monkeypatch):
    """A factor 2 in δ (or λ) of the composition moves γ_const beyond the reference's tolerance."""
    original = majority.composed_delta
    monkeypatch.setattr(majority, "composed_delta", lambda m, Delta, composition="general": 2 * original(m, Delta))
    with pytest.raises(AssertionError):
        test_gamma_const_reference_values_where_delta_matters(0.02)


def worst_rr_loss(gamma: float, tau_epsilon: float, lam: float, m_epsilon: float) -> float:
    """max over (τε, λ)-DP pairs (p, p') of P(out = 1) − e^{mε} P'(out = 1), for randomized response
    with keep-probability γ on a bit g with P(g = 1) = p: an LP over the pair polytope."""
    e_tau, e_m = math.exp(tau_epsilon), math.exp(m_epsilon)
    # variables (p, p'); maximise γ p − e^{mε} γ p'
    a_ub = [[1, -e_tau], [-e_tau, 1], [-1, e_tau], [e_tau, -1]]
    b_ub = [lam, lam, e_tau - 1 + lam, e_tau - 1 + lam]
    best = optimize.linprog([-gamma, e_m * gamma], A_ub=a_ub, b_ub=b_ub, bounds=[(0, 1), (0, 1)], method="highs")
    return -best.fun + (1 - gamma) / 2 * (1 - e_m)


@pytest.mark.parametrize("Delta", [0.02, 0.05])
def test_gamma_const_sits_on_its_privacy_bound(Delta):
    """With γ_const the worst pair spends exactly δ; 1e-6 more γ spends more than δ."""
    gamma = float(majority.gamma_constant(K, M, EPSILON, Delta)[0])
    delta, lam = composed(M, Delta), composed(K, Delta)
    assert worst_rr_loss(gamma, K * EPSILON, lam, M * EPSILON) == pytest.approx(delta, abs=1e-12)
    assert worst_rr_loss(gamma * (1 + 1e-6), K * EPSILON, lam, M * EPSILON) > delta + 1e-9
    report = privacy_verifier.verify_privacy(majority.gamma_constant(K, M, EPSILON, Delta), K, M, EPSILON, Delta, delta)
    assert report.violation <= 1e-12  # the exact verifier agrees that it is private


@pytest.mark.parametrize("Delta", [0.05, 0.2])
def test_feasible_interval_lies_inside_the_hull_of_the_vertices(Delta):
    """Brute force on a grid: every (p, p') the interval admits is in the convex hull of the
    region's vertices, and every p' just outside it breaks one of the four DP inequalities."""
    e = math.exp(EPSILON)
    hull = spatial.Delaunay(majority.feasible_region_vertices(EPSILON, Delta))
    p = np.linspace(0, 1, 2001)
    lo, hi = majority.feasible_interval(p, EPSILON, Delta)
    assert np.all(lo <= hi + 1e-15)
    for q in (lo, hi, (lo + hi) / 2):
        assert np.all(hull.find_simplex(np.column_stack([p, q]), tol=1e-12) >= 0)

    def dp_pair(p, q):
        return (
            (p <= e * q + Delta + 1e-12)
            & (q <= e * p + Delta + 1e-12)
            & (1 - p <= e * (1 - q) + Delta + 1e-12)
            & (1 - q <= e * (1 - p) + Delta + 1e-12)
        )

    assert dp_pair(p, lo).all() and dp_pair(p, hi).all()
    outside = (~dp_pair(p, hi + 1e-6) | (hi + 1e-6 > 1)) & (~dp_pair(p, lo - 1e-6) | (lo - 1e-6 < 0))
    assert outside.all()


def test_feasible_interval_negative_control(monkeypatch):
    """An interval computed with 2Δ leaves the hull of the true region's vertices."""
    original = majority.feasible_interval
    monkeypatch.setattr(majority, "feasible_interval", lambda p, epsilon, Delta=0.0: original(p, epsilon, 2 * Delta))
    with pytest.raises(AssertionError):
        test_feasible_interval_lies_inside_the_hull_of_the_vertices(0.05)


def test_effective_budget_sees_delta():
    """The smallest m with (mε, δ)-DP, where δ is a real part of the budget: γ_const is private at
    its m (the exact verifier finds it far from tight: RR's derivation is a worst case over all
    (Kε, λ)-DP majorities), just below its effective budget it is not, and with δ halved the same
    γ needs a larger m."""
    Delta = 0.02
    gamma = majority.gamma_constant(K, M, EPSILON, Delta)
    delta = composed(M, Delta)
    budget = privacy_verifier.effective_budget(gamma, K, EPSILON, Delta, delta)
    assert 0 < budget <= M
    assert privacy_verifier.verify_privacy(gamma, K, budget, EPSILON, Delta, delta).violation <= 1e-9
    assert privacy_verifier.verify_privacy(gamma, K, budget - 1e-3, EPSILON, Delta, delta).violation > 0
    assert privacy_verifier.effective_budget(gamma, K, EPSILON, Delta, delta / 2) > budget + 0.1
