"""Tests of :mod:`dpreplication.mechanisms.selection` (spec §3.4, §6 checks 1–8 and 12): the exact pmfs
of the exponential mechanism, report-noisy-max and permute-and-flip. Its docstrings state that each is
ε-DP for arbitrary (not necessarily monotone) quality functions, that report-noisy-max with exponential
noise is identical in distribution to permute-and-flip (Ding et al., Thm 5), and that report-noisy-max
with Gumbel noise is the exponential mechanism. The samplers are tested in
``test_selection_sampling.py``."""

import itertools
import math

import numpy as np
import pytest
from dpbench_histograms import dpbench_histogram as _dpbench

from dpreplication.accounting import max_privacy_loss
from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms.quality import median_scores, mode_scores
from dpreplication.mechanisms.selection import _flip_integral, flip_probabilities
from dpreplication.numerics import gauss_legendre_unit
from dpreplication.replications.permute_and_flip.exact import score_vector
from dpreplication.statistics import counts, goodness_of_fit, total_variation

Q5 = score_vector("Q5")
Q100 = score_vector("Q100")
SPEC_Q5 = {
    (1, "pf"): [0.451971711148, 0.217675568347, 0.217675568347, 0.070757994965, 0.041919157192],
    (1, "em"): [0.388874039525, 0.235864027738, 0.235864027738, 0.086769526717, 0.052628378282],
    (1, "lap"): [0.410487388420, 0.234093584151, 0.234093584151, 0.076385443350, 0.044939999927],
    (2, "pf"): [0.657740093379, 0.157998085392, 0.157998085392, 0.019247576424, 0.007016159413],
}


def pf_bruteforce_heads(q, epsilon):
    """P(r) = Σ over heads-sets S ∋ r of P(S)/|S| (Lemma 2 view)."""
    p = sel.flip_probabilities(q, epsilon)
    k = len(p)
    out = np.zeros(k)
    for heads in itertools.product([0, 1], repeat=k):
        heads = np.array(heads, bool)
        if not heads.any():
            continue
        weight = np.prod(np.where(heads, p, 1 - p))
        out[heads] += weight / heads.sum()
    return out / out.sum()


def pf_bruteforce_permutations(q, epsilon):
    """Average over all k! orders of the first-heads distribution (Alg. 2 exactly)."""
    p = sel.flip_probabilities(q, epsilon)
    k = len(p)
    out = np.zeros(k)
    for order in itertools.permutations(range(k)):
        survive = 1.0
        for r in order:
            out[r] += survive * p[r]
            survive *= 1 - p[r]
    return out / math.factorial(k)


# ------------------------------------------------------------------ exact (checks 1–8)


@pytest.mark.parametrize("epsilon", [1, 2])
def test_pf_pmf_matches_spec_and_brute_force(epsilon):
    pmf = sel.permute_and_flip_pmf(Q5, epsilon)
    np.testing.assert_allclose(pmf, SPEC_Q5[(epsilon, "pf")], atol=1e-11, rtol=0)
    np.testing.assert_allclose(pmf, pf_bruteforce_heads(Q5, epsilon), atol=1e-13, rtol=0)
    np.testing.assert_allclose(pmf, pf_bruteforce_permutations(Q5, epsilon), atol=1e-13, rtol=0)
    np.testing.assert_allclose(pmf, sel.report_noisy_max_pmf_quad(Q5, epsilon, noise="exponential"), atol=1e-11)


def test_em_and_laplace_pmfs_match_spec():
    np.testing.assert_allclose(sel.exponential_mechanism_pmf(Q5, 1), SPEC_Q5[(1, "em")], atol=1e-10, rtol=0)
    np.testing.assert_allclose(sel.report_noisy_max_laplace_pmf(Q5, 1), SPEC_Q5[(1, "lap")], atol=1e-10, rtol=0)
    np.testing.assert_allclose(sel.report_noisy_max_pmf_quad(Q5, 1), SPEC_Q5[(1, "lap")], atol=1e-10, rtol=0)


@pytest.mark.parametrize("gap", [0.3, 1.0, 4.0])
def test_two_candidate_closed_forms(gap):
    q, p = [gap, 0.0], math.exp(-gap / 2)
    assert sel.permute_and_flip_pmf(q, 1)[1] == pytest.approx(p / 2, abs=1e-14)
    assert sel.exponential_mechanism_pmf(q, 1)[1] == pytest.approx(p / (1 + p), abs=1e-14)
    assert sel.report_noisy_max_laplace_pmf(q, 1)[1] == pytest.approx(0.5 * p * (1 + gap / 4), abs=1e-12)


@pytest.mark.parametrize(
    "epsilon, top, err_em, err_pf, err_lap",
    [
        (0.5, 0.2493881444, 3.519925, 3.253767, 3.288544),
        (1, 0.4713653455, 1.541494, 1.284831, 1.395500),
        (2, 0.7381993867, 0.581977, 0.403960, 0.540317),
        (4, 0.9227127670, 0.156518, 0.088957, 0.169599),
    ],
)
def test_q100(epsilon, top, err_em, err_pf, err_lap):
    pf = sel.permute_and_flip_pmf(Q100, epsilon)
    em = sel.exponential_mechanism_pmf(Q100, epsilon)
    lap = sel.report_noisy_max_laplace_pmf(Q100, epsilon)
    for pmf in (pf, em, lap):
        assert abs(pmf.sum() - 1) < 1e-12
    np.testing.assert_allclose(pf, sel.report_noisy_max_pmf_quad(Q100, epsilon, noise="exponential"), atol=1e-12)
    assert total_variation(lap, pf) <= np.prod(1 - sel.flip_probabilities(Q100, epsilon) / 2) + 1e-12
    assert sel.expected_error(pf, Q100) <= sel.expected_error(em, Q100)
    assert pf.max() == pytest.approx(top, abs=1e-10)
    assert sel.expected_error(em, Q100) == pytest.approx(err_em, abs=1e-6)
    assert sel.expected_error(pf, Q100) == pytest.approx(err_pf, abs=1e-6)
    assert sel.expected_error(lap, Q100) == pytest.approx(err_lap, abs=1e-6)


def test_laplace_fast_evaluator_agrees_with_quadrature_on_q100():
    np.testing.assert_allclose(
        sel.report_noisy_max_laplace_pmf(Q100, 1), sel.report_noisy_max_pmf_quad(Q100, 1), atol=1e-12
    )


@pytest.mark.parametrize("pmf_of", list(sel.EXACT_PMFS.values()), ids=list(sel.EXACT_PMFS))
def test_invariances(pmf_of):
    np.testing.assert_allclose(pmf_of(np.full(7, 3.0), 1.3), np.full(7, 1 / 7), atol=1e-14)
    np.testing.assert_allclose(pmf_of([2, 2, 1, 0], 1e6), [0.5, 0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(pmf_of(Q5 + 17.25, 1), pmf_of(Q5, 1), atol=1e-12)
    order = np.array([3, 0, 4, 1, 2])
    np.testing.assert_allclose(pmf_of(Q5[order], 1), pmf_of(Q5, 1)[order], atol=1e-14)


def test_pmfs_are_epsilon_dp_on_random_neighbours():
    """Check 6: max |log P − log P'| ≤ ε for every output on 400 random neighbour pairs."""
    rng = np.random.default_rng(6)
    for _ in range(400):
        k = int(rng.integers(2, 7))
        q = rng.integers(0, 6, size=k).astype(float)
        neighbour = q + rng.integers(-1, 2, size=k)
        epsilon = float(rng.uniform(0.1, 5))
        for name, pmf_of in sel.EXACT_PMFS.items():
            loss = max_privacy_loss(pmf_of(q, epsilon), pmf_of(neighbour, epsilon))
            assert loss <= epsilon * (1 + 1e-9), (name, q, neighbour, epsilon, loss)


def test_pf_privacy_is_tight_and_em_is_not():
    def loss(pmf_of):
        return max_privacy_loss(pmf_of([0, 0], 1.0), pmf_of([1, -1], 1.0))

    assert loss(sel.permute_and_flip_pmf) == pytest.approx(1.0, abs=1e-12)
    assert loss(sel.exponential_mechanism_pmf) == pytest.approx(0.620, abs=5e-4)


def test_wrong_noise_scale_breaks_the_privacy_check():
    """The DP check can fail: P&F run with rate ε/Δ (not ε/2Δ) on a non-monotone pair exceeds ε."""

    def loss(q, q_prime, epsilon):
        return max_privacy_loss(
            sel.permute_and_flip_pmf(q, 2 * epsilon), sel.permute_and_flip_pmf(q_prime, 2 * epsilon)
        )

    assert loss([0, 0], [1, -1], 1.0) > 1.5


def test_privacy_loss_is_infinite_where_the_supports_differ():
    assert max_privacy_loss([0.5, 0.5], [1.0, 0.0]) == np.inf
    assert max_privacy_loss([0.5, 0.5, 0.0], [0.25, 0.75, 0.0]) == np.log(2)  # a common zero adds no loss
    assert max_privacy_loss([0.25, 0.75], [0.25, 0.75]) == 0.0


@pytest.mark.parametrize("n", [2, 10, 1000])
@pytest.mark.parametrize("gap", [0.3, 2.0, 9.0])
def test_worst_case_closed_forms_equal_the_exact_expected_errors(n, gap):
    """Spec §3.2: on one item at q* and n − 1 items gap below, the closed forms are the exact errors
    (to 1e-7: P&F's form cancels, 1 − (1 − (1 − p)^n)/(n p) with p = e^{−εc/2} = 1.1e-2 loses 1e-8)."""
    q = np.concatenate(([gap], np.zeros(n - 1)))
    for epsilon in (0.5, 2.0):
        pf_error = sel.expected_error(sel.permute_and_flip_pmf(q, epsilon), q)
        em_error = sel.expected_error(sel.exponential_mechanism_pmf(q, epsilon), q)
        assert sel.permute_and_flip_worst_case_error(n, gap, epsilon) == pytest.approx(pf_error, rel=1e-7)
        assert sel.exponential_mechanism_worst_case_error(n, gap, epsilon) == pytest.approx(em_error, rel=1e-7)
        assert pf_error <= em_error  # Ding et al.: P&F never does worse than the EM


def test_epsilon_for_expected_error_inverts_the_error():
    q = np.array([4.0, 3, 3, 1, 0])
    for pmf_of in (sel.exponential_mechanism_pmf, sel.permute_and_flip_pmf):
        epsilon = sel.epsilon_for_expected_error(q, 0.7, pmf_of)
        assert sel.expected_error(pmf_of(q, epsilon), q) == pytest.approx(0.7, rel=1e-10)


def test_alternating_sum_is_unstable_but_gauss_legendre_is_not():
    """Spec §3.2: k=60, half 0 and half −1, ε=0.01 → true P(0) = 0.016709039455."""
    q = np.array([0.0] * 30 + [-1.0] * 30)
    pmf = sel.permute_and_flip_pmf(q, 0.01)
    assert pmf[0] == pytest.approx(0.016709039455, abs=1e-12)
    assert abs(pmf.sum() - 1) < 1e-12


def test_k1024_pmf_is_valid():
    """Its time is a benchmark (benchmarks/test_selection_benchmarks.py), never asserted here."""
    pmf = sel.permute_and_flip_pmf(mode_scores(_dpbench("HEPTH")), 0.04)
    assert pmf.min() >= 0 and abs(pmf.sum() - 1) < 1e-10


# ------------------------------------------------------------------ the exact P&F pmf at scale: power series for the coins far from the top


def direct_flip_integral(p):
    """The defining formula, evaluated term by term (O(k · nodes) memory)."""
    u, w = gauss_legendre_unit(p.size // 2 + 2)
    log_factors = np.log1p(-np.outer(u, p))
    return p * (w @ np.exp(log_factors.sum(axis=1, keepdims=True) - log_factors))


@pytest.mark.parametrize("case", range(40))
def test_series_evaluation_equals_the_direct_formula(case):
    rng = np.random.default_rng(case)
    k = int(rng.integers(1, 300))
    scores = [rng.normal(0, 10, k), rng.integers(0, 4, k).astype(float), np.zeros(k), rng.exponential(3, k)][case % 4]
    p = flip_probabilities(scores, float(rng.choice([0.01, 0.3, 1.0, 8.0])))
    np.testing.assert_allclose(_flip_integral(p), direct_flip_integral(p), rtol=1e-12, atol=1e-300)


def test_a_hundred_thousand_candidates_sum_to_one():
    scores = np.random.default_rng(0).normal(0, 50, 100_000)
    pmf = _flip_integral(flip_probabilities(scores, 1.0))
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12) and np.argmax(pmf) == np.argmax(scores)


# ------------------------------------------------------------------ extreme ε: every pmf stays a pmf, concentrated on the arg-max set


@pytest.mark.parametrize("epsilon", [1e13, 1e308])
def test_exact_pmfs_stay_pmfs_on_the_arg_max_set_at_extreme_epsilon(epsilon):
    """Every exact pmf and the P&F pmf at ε = 1e13 and 1e308: sums to 1, uniform on the arg-max set.

    Before: RNM-Laplace summed to 1 + 5e-6 at ε = 1e13 (to ½ at 1e100), EM gave NaN on ties at 1e308."""
    for q in (Q5, score_vector("QT"), Q100, [5.0, 5.0, 5.0], [3.0, 2.0, 0.0], [-1e3, -1e3, -1e3 - 0.5]):
        q = np.asarray(q, dtype=float)
        top = q == q.max()
        for name, pmf_of in {**sel.EXACT_PMFS, "permute_and_flip_pmf": sel.permute_and_flip_pmf}.items():
            pmf = pmf_of(q, epsilon)
            assert np.all(np.isfinite(pmf)) and pmf.sum() == pytest.approx(1.0, abs=1e-12), (name, q)
            np.testing.assert_allclose(pmf[top], 1.0 / top.sum(), rtol=0, atol=1e-12, err_msg=name)
            assert np.all(pmf[~top] <= 1e-12), (name, q)


def test_extreme_epsilon_pmfs_equal_those_of_the_scaled_gaps():
    """Near-ties at ε = 1e12 (b = 2e-12): each pmf equals the pmf of the gaps ``(q − q*)/b`` at b = 1
    (the pmfs depend on ``(q − q*)/b`` only). Before: EM off by 3e-5, RNM-Laplace by 5e-7 relative."""
    q = np.array([1.0, 1.0 - 2e-12, 1.0 - 4e-12, 1.0 - 7e-12])
    gaps = (q - q.max()) / sel.noise_scale(1e12)
    for name, pmf_of in sel.EXACT_PMFS.items():
        np.testing.assert_allclose(pmf_of(q, 1e12), pmf_of(gaps, 2.0), rtol=1e-9, atol=0, err_msg=name)


def test_the_figures_evaluate_the_pmfs_on_the_raw_scores():
    """The stable forms take over only beyond the figures' range, so their numbers stay bit for bit:
    the scores' rounding in units of b at the largest ε the P&F figures evaluate (EM: 1e3, the end of
    :func:`epsilon_for_expected_error`'s bracket; RNM-Laplace: ε₁, the end of the utility curves)."""
    for dataset in ("ADULTFRANK", "HEPTH", "INCOME", "MEDCOST", "PATENT", "SEARCHLOGS"):
        histogram = _dpbench(dataset)
        for q in (mode_scores(histogram), median_scores(histogram)):
            assert sel._resolution(q, sel.noise_scale(1e3)) < sel.EM_RESOLUTION_LIMIT / 4
            epsilon_one = sel.epsilon_for_expected_error(q, 1.0)
            assert sel._resolution(q, sel.noise_scale(epsilon_one)) < sel.LAPLACE_RESOLUTION_LIMIT / 1000


# ------------------------------------------------------------------ arguments; OpenDP's samplers against the exact pmfs (check 12)


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="epsilon"):
        sel.permute_and_flip_pmf(Q5, 0)
    for pmf_of in sel.EXACT_PMFS.values():
        for epsilon in (math.nan, math.inf, -1.0):
            with pytest.raises(ValueError, match=f"epsilon must be positive and finite, got {epsilon}"):
                pmf_of(Q5, epsilon)
        with pytest.raises(ValueError, match="sensitivity must be positive and finite, got nan"):
            pmf_of(Q5, 1.0, math.nan)
    for worst_case_error in (sel.permute_and_flip_worst_case_error, sel.exponential_mechanism_worst_case_error):
        with pytest.raises(ValueError, match="epsilon must be non-negative and finite, got nan"):
            worst_case_error(5, 1.0, math.nan)
    with pytest.raises(ValueError, match="finite"):
        sel.exponential_mechanism_pmf([1.0, np.nan], 1)
    with pytest.raises(ValueError, match="1-D"):
        sel.report_noisy_max_laplace_pmf([[1.0]], 1)


def test_opendp_noisy_max_matches_pf_and_its_zcdp_variant_matches_em():
    """Check 12: OpenDP's exponential-noise RNM is P&F; its Gumbel (zCDP) variant is the EM."""
    dp = pytest.importorskip("opendp.prelude", reason="the oracle opendp is absent (extra 'oracles')")
    dp.enable_features("contrib")
    input_space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    pf_meas = dp.m.make_noisy_max(*input_space, dp.max_divergence(), scale=2.0)
    em_meas = dp.m.make_noisy_max(*input_space, dp.zero_concentrated_divergence(), scale=2.0)
    assert pf_meas.map(1.0) == pytest.approx(1.0)
    assert em_meas.map(1.0) == pytest.approx(1 / 8)
    scores = [float(v) for v in Q5]
    # OpenDP samples from its own unseedable CSPRNG: the bound p > 1e-9 makes a false failure
    # a 2e-9 event per run (χ²₄ approximation; every expected count is ≥ 838), and 20,000 draws
    # keep the power: each sample rejects the other pmf, the non-centrality n·Σ(p − q)²/q being
    # 364, so a false failure of either rejection has probability 6e-35 (ncx2(4, 364) below the
    # 1e-9 critical value 47.9).
    n = 20_000
    pf_draws = counts([pf_meas(scores) for _ in range(n)], 5)
    em_draws = counts([em_meas(scores) for _ in range(n)], 5)
    pf_pmf, em_pmf = sel.permute_and_flip_pmf(Q5, 1), sel.exponential_mechanism_pmf(Q5, 1)
    assert goodness_of_fit(pf_draws, pf_pmf).chi2_pvalue > 1e-9
    assert goodness_of_fit(em_draws, em_pmf).chi2_pvalue > 1e-9
    assert goodness_of_fit(pf_draws, em_pmf).chi2_pvalue < 1e-9 and goodness_of_fit(em_draws, pf_pmf).chi2_pvalue < 1e-9
