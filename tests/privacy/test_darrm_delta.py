"""DaRRM where δ matters: Δ = 0.02–0.2, so that δ and λ are not negligible against e^{mε} − 1.

At ε = 0.1, m = 3 the budget e^{mε} − 1 = 0.35, and Δ = 0.02 gives δ = 1 − (1 − Δ)^3 = 0.059 and
λ = 1 − (1 − Δ)^11 = 0.199: a factor 2 in either moves γ_const by more than 10 %, which the tests
below see. Every expected value is computed here from the paper's formulas (App. A.1 for γ_const,
App. C.1 for the (mε, δ) condition, spec §1.1 for the region F), not by the package, and every
check has a negative control: the same check run on a deliberately wrong implementation fails.
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement

import numpy as np
import pytest
from scipy import optimize, spatial

from dpreplication.accounting import privacy_verifier
from dpreplication.mechanisms import feasible_region, majority
from dpreplication.optimisation import gamma_lp, gamma_lp_constraints
from dpreplication.replications.darrm import analytic

K, M, EPSILON = 11, 3, 0.1


# --------------------------------------------------------------------------- independent formulas


def composed(m: int, Delta: float, composition: str = "general") -> float:
    """δ of m (ε, Δ)-DP mechanisms: ``1 − (1 − Δ)^m`` (general, i = 0 term) or ``mΔ`` (simple)."""
    return 1 - (1 - Delta) ** m if composition == "general" else m * Delta


def gamma_const_reference(K, m, epsilon, Delta, composition="general"):
    """App. A.1 with τ = K, λ = δ(K), δ = δ(m):
    γ = (e^{mε} − 1 + 2δ) / (2(e^{τε} − e^{mε} + (1 + e^{mε})λ)/(e^{τε} + 1) + e^{mε} − 1)."""
    lam, delta = composed(K, Delta, composition), composed(m, Delta, composition)
    e_m, e_tau = math.exp(m * epsilon), math.exp(K * epsilon)
    return (e_m - 1 + 2 * delta) / (2 * (e_tau - e_m + (1 + e_m) * lam) / (e_tau + 1) + e_m - 1)


def dp_slack(p, q, epsilon, Delta):
    """min of ``rhs − lhs`` over the four (ε, Δ)-DP inequalities of a pair (p, p') (spec §1.1):
    ≥ 0 exactly on the region F."""
    e = math.exp(epsilon)
    return np.minimum.reduce(
        [e * q + Delta - p, e * p + Delta - q, e * (1 - q) + Delta - (1 - p), e * (1 - p) + Delta - (1 - q)]
    )


@pytest.fixture
def doubled(monkeypatch):
    """``doubled("delta")`` / ``doubled("lambda")``: the package composes δ (m < K) or λ (m = K)
    with a factor 2 (the bug the negative controls model)."""
    original = majority.composed_delta

    def apply(which):
        def wrong(m, Delta, composition="general"):
            hit = (m == K) == (which == "lambda")
            return (2 if hit else 1) * original(m, Delta, composition)

        monkeypatch.setattr(majority, "composed_delta", wrong)

    return apply


@pytest.fixture
def region(monkeypatch):
    """``region(transform)``: the package's vertices of F replaced by ``transform(epsilon, Delta)``;
    the memoised vertex multisets are cleared before and after, so no other test sees them."""
    original = feasible_region.feasible_region_vertices

    def apply(transform):
        monkeypatch.setattr(
            feasible_region, "feasible_region_vertices", lambda epsilon, Delta=0.0: transform(original, epsilon, Delta)
        )
        feasible_region.vertex_multisets.cache_clear()

    yield apply
    feasible_region.vertex_multisets.cache_clear()


# --------------------------------------------------------------------------- γ_const: reference values


@pytest.mark.parametrize("composition", ["general", "simple"])
@pytest.mark.parametrize("Delta", [0.02, 0.05])
def test_gamma_const_reference_values_where_delta_matters(Delta, composition):
    """γ_const of the package and of the figure job (``gamma_shapes``) equal App. A.1 to 1e-12."""
    expected = gamma_const_reference(K, M, EPSILON, Delta, composition)
    assert 0 < expected < 1
    np.testing.assert_allclose(
        majority.gamma_constant(K, M, EPSILON, Delta, composition=composition), expected, rtol=1e-12
    )
    shapes = analytic.gamma_shapes(
        figure="F",
        K=K,
        ms=[M],
        epsilon=EPSILON,
        Delta=Delta,
        series=["const"],
        composition=composition,
        mean_probability=None,
        prior_means=None,
        solver="highs",
    )
    np.testing.assert_allclose(shapes.delta, composed(M, Delta, composition), rtol=1e-12)
    np.testing.assert_allclose(shapes.gamma, expected, rtol=1e-12)
    without_delta = gamma_const_reference(K, M, EPSILON, 0.0)
    assert abs(expected - without_delta) > 0.05 * expected  # δ and λ really matter here


@pytest.mark.parametrize("which", ["delta", "lambda"])
def test_gamma_const_reference_negative_control(doubled, which):
    """A factor 2 in δ alone, or in λ alone, moves γ_const beyond the reference's tolerance."""
    doubled(which)
    with pytest.raises(AssertionError):
        test_gamma_const_reference_values_where_delta_matters(0.02, "general")


# --------------------------------------------------------------------------- γ_const: tightness


def worst_rr_loss(gamma: float, tau_epsilon: float, lam: float, m_epsilon: float) -> float:
    """max over (τε, λ)-DP pairs (p, p') of P(out = 1) − e^{mε} P'(out = 1), for randomized response
    with keep-probability γ on a bit g with P(g = 1) = p: an LP over the pair polytope.

    P(out = 1) = γp + (1 − γ)/2, so the loss is γ(p − e^{mε}p') + (1 − γ)(1 − e^{mε})/2; output 0
    is the same problem under (p, p') ↦ (1 − p, 1 − p')."""
    e_tau, e_m = math.exp(tau_epsilon), math.exp(m_epsilon)
    # variables (p, p'); maximise γ p − e^{mε} γ p'
    a_ub = [[1, -e_tau], [-e_tau, 1], [-1, e_tau], [e_tau, -1]]
    b_ub = [lam, lam, e_tau - 1 + lam, e_tau - 1 + lam]
    best = optimize.linprog([-gamma, e_m * gamma], A_ub=a_ub, b_ub=b_ub, bounds=[(0, 1), (0, 1)], method="highs")
    return -best.fun + (1 - gamma) / 2 * (1 - e_m)


def assert_on_its_bound(Delta: float) -> None:
    """γ_const spends exactly δ against the worst (Kε, λ)-DP majority (to 1e-12), and γ(1 + 1e-6)
    spends more than δ + 1e-9: the constant is the largest one RR's derivation allows."""
    gamma = float(majority.gamma_constant(K, M, EPSILON, Delta)[0])
    delta, lam = composed(M, Delta), composed(K, Delta)
    assert worst_rr_loss(gamma, K * EPSILON, lam, M * EPSILON) == pytest.approx(delta, abs=1e-12)
    assert worst_rr_loss(gamma * (1 + 1e-6), K * EPSILON, lam, M * EPSILON) > delta + 1e-9


@pytest.mark.parametrize("Delta", [0.02, 0.05])
def test_gamma_const_sits_on_its_privacy_bound(Delta):
    """On RR's own bound; the exact DaRRM verifier (which knows the majority is a majority of
    independent mechanisms, hence is looser than RR's worst case) agrees it is private."""
    assert_on_its_bound(Delta)
    delta = composed(M, Delta)
    report = privacy_verifier.verify_privacy(majority.gamma_constant(K, M, EPSILON, Delta), K, M, EPSILON, Delta, delta)
    assert report.worst_cost <= math.expm1(M * EPSILON) + 2 * delta + 1e-12


@pytest.mark.parametrize("which", ["delta", "lambda"])
def test_gamma_const_tightness_negative_control(doubled, which):
    """With 2δ γ_const overspends; with 2λ it leaves δ unspent: either way it is off its bound."""
    doubled(which)
    with pytest.raises(AssertionError):
        assert_on_its_bound(0.02)


# --------------------------------------------------------------------------- the region F


@pytest.mark.parametrize("Delta", [0.05, 0.2])
def test_feasible_interval_lies_inside_the_hull_of_the_vertices(Delta):
    """Brute force on a grid: every (p, p') the interval admits is in the convex hull of the
    region's vertices, and every p' just outside it breaks one of the four DP inequalities."""
    hull = spatial.Delaunay(feasible_region.feasible_region_vertices(EPSILON, Delta))
    p = np.linspace(0, 1, 2001)
    lo, hi = feasible_region.feasible_interval(p, EPSILON, Delta)
    assert np.all(lo <= hi + 1e-15)
    for q in (lo, hi, (lo + hi) / 2):
        assert np.all(hull.find_simplex(np.column_stack([p, q]), tol=1e-12) >= 0)
    assert np.all(dp_slack(p, lo, EPSILON, Delta) >= -1e-12) and np.all(dp_slack(p, hi, EPSILON, Delta) >= -1e-12)
    above = (dp_slack(p, hi + 1e-6, EPSILON, Delta) < 0) | (hi + 1e-6 > 1)
    below = (dp_slack(p, lo - 1e-6, EPSILON, Delta) < 0) | (lo - 1e-6 < 0)
    assert above.all() and below.all()


def test_feasible_interval_negative_control(monkeypatch):
    """An interval computed with 2Δ leaves the hull of the true region's vertices."""
    original = feasible_region.feasible_interval
    monkeypatch.setattr(
        feasible_region, "feasible_interval", lambda p, epsilon, Delta=0.0: original(p, epsilon, 2 * Delta)
    )
    with pytest.raises(AssertionError):
        test_feasible_interval_lies_inside_the_hull_of_the_vertices(0.05)


@pytest.mark.parametrize("Delta", [0.05, 0.2])
def test_hull_of_the_vertices_is_the_dp_region(Delta):
    """The LP's constraints are built on the vertices, so their hull must be F itself: on a
    401 × 401 grid of [0, 1]², a point is in the hull iff it satisfies the four DP inequalities
    (points within 1e-9 of F's boundary are left out), and each vertex lies in F."""
    vertices = feasible_region.feasible_region_vertices(EPSILON, Delta)
    assert len(vertices) == 8 and np.all(dp_slack(vertices[:, 0], vertices[:, 1], EPSILON, Delta) >= -1e-12)
    p, q = (axis.ravel() for axis in np.meshgrid(np.linspace(0, 1, 401), np.linspace(0, 1, 401)))
    slack = dp_slack(p, q, EPSILON, Delta)
    clear = np.abs(slack) > 1e-9
    in_hull = spatial.Delaunay(vertices).find_simplex(np.column_stack([p, q]), tol=1e-12) >= 0
    assert np.array_equal(in_hull[clear], slack[clear] > 0)


def extreme_vertex_with_twice_delta(original, epsilon, Delta):
    """The region's vertices with v5 = ((e^ε + 2Δ)/(1 + e^ε), (1 − Δ)/(1 + e^ε)) (a factor 2 in Δ)."""
    vertices = original(epsilon, Delta).copy()
    vertices[2, 0] = (math.exp(epsilon) + 2 * Delta) / (1 + math.exp(epsilon))
    return vertices


@pytest.mark.parametrize(
    "transform",
    [
        extreme_vertex_with_twice_delta,
        lambda original, epsilon, Delta: original(epsilon, 2 * Delta),
        lambda original, epsilon, Delta: original(epsilon, Delta / 2),
    ],
    ids=["v5 with 2Delta", "all vertices with 2Delta", "all vertices with Delta/2"],
)
def test_hull_negative_control(region, transform):
    """Vertices with 2Δ leave F (the vertex check fails); with Δ/2 they stay in F but their hull
    misses part of it (the grid check fails)."""
    region(transform)
    with pytest.raises(AssertionError):
        test_hull_of_the_vertices_is_the_dp_region(0.05)


# --------------------------------------------------------------------------- the LP's feasible set


# K = 3, ε = ln 2, Δ = 0.1, m = 1: δ = 0.1 is 20 % of the budget e^{mε} − 1 + 2δ, and every vertex
# of F ((0.7, 0.3), (0.1, 0), (1, 0.9), ...) lies on the grid of step 0.05, so the largest loss
# over the grid is the largest over F^3 (f is multilinear in the pairs; Lemma 5.1).
GRID_K, GRID_M, GRID_EPSILON, GRID_DELTA = 3, 1, math.log(2.0), 0.1


def vote_count_pmf(p: np.ndarray) -> np.ndarray:
    """Poisson-binomial pmf of the number of ones, rows of independent Bernoulli(p_i)."""
    pmf = np.ones((p.shape[0], 1))
    for column in p.T:
        pmf = np.pad(pmf * (1 - column[:, None]), ((0, 0), (0, 1))) + np.pad(pmf * column[:, None], ((0, 0), (1, 0)))
    return pmf


@pytest.fixture(scope="module")
def grid_pmfs():
    """Vote-count pmfs on D and D' of every multiset of K pairs from the grid points of F."""
    axis = np.round(np.linspace(0, 1, 21), 12)
    p, q = (a.ravel() for a in np.meshgrid(axis, axis))
    inside = dp_slack(p, q, GRID_EPSILON, GRID_DELTA) >= -1e-12
    p, q = p[inside], q[inside]
    rows = np.array(list(combinations_with_replacement(range(p.size), GRID_K)))
    return vote_count_pmf(p[rows]), vote_count_pmf(q[rows])


def largest_grid_loss(gamma, pmfs) -> float:
    """max over the grid multisets, both outputs and both orders of (D, D') of
    P(A(D) = o) − e^{mε} P(A(D') = o) − δ, from Algorithm 1's output probabilities
    P(A = 1) = Σ_l α_l (γ(l)·1{l > K/2} + (1 − γ(l))/2)."""
    l = np.arange(GRID_K + 1)
    weights = np.asarray(gamma) * (l > GRID_K / 2) + (1 - np.asarray(gamma)) / 2
    one, one_prime = pmfs[0] @ weights, pmfs[1] @ weights
    e = math.exp(GRID_M * GRID_EPSILON)
    gaps = [one - e * one_prime, (1 - one) - e * (1 - one_prime), one_prime - e * one, (1 - one_prime) - e * (1 - one)]
    return max(float(g.max()) for g in gaps) - composed(GRID_M, GRID_DELTA)


def assert_lp_gamma_is_exactly_private_on_the_grid(pmfs) -> None:
    """γ_opt spends exactly δ on the grid (private, and a vertex tuple binds: to 1e-12), and
    γ_opt(1 + 1e-6) (clipped at 1) overspends by more than 1e-9."""
    delta = composed(GRID_M, GRID_DELTA)
    gamma = gamma_lp.optimise_gamma(GRID_K, GRID_M, GRID_EPSILON, GRID_DELTA, delta).gamma
    assert np.any(gamma < 1 - 1e-6)  # the budget binds somewhere
    assert largest_grid_loss(gamma, pmfs) == pytest.approx(0.0, abs=1e-12)
    assert largest_grid_loss(np.minimum(gamma * (1 + 1e-6), 1.0), pmfs) > 1e-9


def test_lp_gamma_is_exactly_private_over_a_grid_of_neighbouring_pairs(grid_pmfs):
    """The LP's feasible set, built from the vertex multisets of F^K, is the set of γ that are
    (mε, δ)-DP against every neighbouring (p, p') tuple of the grid (1,373,701 multisets)."""
    assert grid_pmfs[0].shape[0] > 10**6
    assert_lp_gamma_is_exactly_private_on_the_grid(grid_pmfs)


@pytest.mark.parametrize(
    "wrong",
    ["region at Delta/2", "region at 2 Delta", "budget with 2 delta"],
)
def test_lp_grid_negative_control(grid_pmfs, region, monkeypatch, wrong):
    """An LP on a region at Δ/2 (too few constraints: overspends), at 2Δ (too many: δ left
    unspent) or with the budget e^{mε} − 1 + 4δ fails the grid check."""
    if wrong == "budget with 2 delta":
        original = gamma_lp_constraints.privacy_budget
        monkeypatch.setattr(
            gamma_lp_constraints, "privacy_budget", lambda m, epsilon, delta: original(m, epsilon, 2 * delta)
        )
    else:
        factor = 0.5 if wrong == "region at Delta/2" else 2.0
        region(lambda original, epsilon, Delta: original(epsilon, factor * Delta))
    with pytest.raises(AssertionError):
        assert_lp_gamma_is_exactly_private_on_the_grid(grid_pmfs)


def assert_lp_gamma_on_the_verifier_boundary(Delta: float) -> None:
    """K = 11: γ_opt sits on the exact (mε, δ) boundary. Against the budget written out here,
    worst f = e^{mε} − 1 + 2δ to 1e-9 and never above it, and γ_opt(1 + 1e-6) (clipped at 1)
    exceeds it; the verifier's own verdict agrees: violation 0 to 1e-9, then positive."""
    delta = composed(M, Delta)
    budget = math.expm1(M * EPSILON) + 2 * delta
    gamma = gamma_lp.optimise_gamma(K, M, EPSILON, Delta, delta).gamma
    raised = np.minimum(gamma * (1 + 1e-6), 1.0)
    at, above = (privacy_verifier.verify_privacy(g, K, M, EPSILON, Delta, delta) for g in (gamma, raised))
    assert at.worst_cost == pytest.approx(budget, abs=1e-9) and at.worst_cost <= budget + 1e-12
    assert above.worst_cost > budget + 1e-10
    assert abs(at.violation) <= 1e-9 and at.is_private
    assert above.violation > 1e-10 and not above.is_private


def test_lp_gamma_sits_on_the_exact_verifiers_boundary():
    assert_lp_gamma_on_the_verifier_boundary(0.02)


@pytest.mark.parametrize("module", [gamma_lp_constraints, privacy_verifier], ids=["LP", "verifier"])
def test_lp_boundary_negative_control(monkeypatch, module):
    """The LP solved with 2δ in its budget is off the true boundary; a verifier judging with 2δ
    calls γ_opt(1 + 1e-6) private."""
    original = module.privacy_budget
    monkeypatch.setattr(module, "privacy_budget", lambda m, epsilon, delta: original(m, epsilon, 2 * delta))
    with pytest.raises(AssertionError):
        assert_lp_gamma_on_the_verifier_boundary(0.02)


# --------------------------------------------------------------------------- effective budget


def assert_effective_budget_matches_its_definition(Delta: float, delta: float) -> None:
    """The smallest m with worst f(m) ≤ e^{mε} − 1 + 2δ, found here by a root search on the
    verifier's worst cost (which does not depend on δ), equals the package's effective budget
    to 1e-6; at that budget γ_const is private and 1e-3 below it is not."""
    gamma = majority.gamma_constant(K, M, EPSILON, Delta)

    def excess(m):
        worst = privacy_verifier.verify_privacy(gamma, K, m, EPSILON, Delta, delta).worst_cost
        return worst - (math.expm1(m * EPSILON) + 2 * delta)

    reference = optimize.brentq(excess, 1e-6, K, xtol=1e-12)
    budget = privacy_verifier.effective_budget(gamma, K, EPSILON, Delta, delta)
    assert budget == pytest.approx(reference, abs=1e-6)
    assert excess(budget) <= 1e-9 and excess(budget - 1e-3) > 0


def test_effective_budget_sees_delta():
    """The exact verifier finds γ_const far from tight (RR's derivation is a worst case over all
    (Kε, λ)-DP majorities): its effective budget is below m, and with δ halved the same γ needs
    a larger m."""
    Delta = 0.02
    delta = composed(M, Delta)
    assert_effective_budget_matches_its_definition(Delta, delta)
    assert_effective_budget_matches_its_definition(Delta, delta / 2)
    gamma = majority.gamma_constant(K, M, EPSILON, Delta)
    budget = privacy_verifier.effective_budget(gamma, K, EPSILON, Delta, delta)
    assert 0 < budget <= M
    assert privacy_verifier.effective_budget(gamma, K, EPSILON, Delta, delta / 2) > budget + 0.1


def test_effective_budget_negative_control(monkeypatch):
    """A verifier whose budget carries 2δ (in both its checks) reports a smaller budget."""
    original = privacy_verifier.privacy_budget
    monkeypatch.setattr(privacy_verifier, "privacy_budget", lambda m, epsilon, delta: original(m, epsilon, 2 * delta))
    with pytest.raises(AssertionError):
        assert_effective_budget_matches_its_definition(0.02, composed(M, 0.02))
