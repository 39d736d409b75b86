"""Release-path audits at moderate ε: every function that releases a private output hands its noise
the parameters its guarantee needs, computed here independently from the papers' formulas.

Two kinds of check: a spy on the random draws (a Generator that records each call's parameters)
where the noise is drawn with its scale, and a goodness-of-fit test of the released output's law
where it is not (every selection sampler, DaRRM, subsampling, GNMax, the truncated Laplacian),
both at moderate ε (0.1–2). PrivGene is audited round by round: each draw's ε, its sensitivity
Δ/2 from the candidate set and the scores it sees. Each class of check has a negative control: the
same check run on a deliberately wrong implementation (a factor 2 in ε, Δ or the noise scale)
must fail. The call sites in the jobs are audited in ``test_release_call_sites.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from release_audit import (
    GOF_SAMPLES,
    P_FLOOR,
    PrivGeneAudit,
    RecordingGenerator,
    assert_fits,
    fails,
    truncated_laplace_cdf,
    unit_rows,
)
from scipy import integrate, stats

from dpreplication.learning import functional_mechanism, genetic, models, objective_perturbation, output_perturbation
from dpreplication.learning import sample_and_aggregate as gupt
from dpreplication.mechanisms import additive, enhanced_exponential, gnmax, majority, selection, selection_sampling
from dpreplication.mechanisms import truncated_laplace as tl_mechanism

EPSILONS = [0.1, 0.5, 2.0]


# --------------------------------------------------------------------------- additive noise


def check_laplace_mechanism(epsilon):
    rng = RecordingGenerator(1)
    additive.laplace_mechanism(np.zeros(3), epsilon, rng, sensitivity=2.5)
    assert rng.laplace_scales() == pytest.approx([2.5 / epsilon])


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_laplace_mechanism_scale_is_sensitivity_over_epsilon(epsilon):
    check_laplace_mechanism(epsilon)


def test_laplace_negative_control(monkeypatch):
    monkeypatch.setattr(additive, "laplace_scale", lambda epsilon, sensitivity=1.0: sensitivity / (2 * epsilon))
    assert fails(check_laplace_mechanism, 0.5)


def check_truncated_laplace_release(epsilon, delta, release=tl_mechanism.truncated_laplace_mechanism):
    draws = release(np.zeros(GOF_SAMPLES), epsilon, delta, np.random.default_rng(2), 1.5)
    _, bound = truncated_laplace_cdf(0.0, epsilon, delta, 1.5)
    assert np.abs(draws).max() <= bound
    p_value = stats.kstest(draws, lambda x: truncated_laplace_cdf(x, epsilon, delta, 1.5)[0]).pvalue
    assert p_value >= P_FLOOR, p_value


@pytest.mark.parametrize("epsilon, delta", [(0.1, 0.05), (0.5, 1e-3), (2.0, 1e-6)])
def test_truncated_laplace_release_has_the_stated_law(epsilon, delta):
    check_truncated_laplace_release(epsilon, delta)


def test_truncated_laplace_negative_control():
    halved = lambda value, epsilon, delta, rng, sensitivity: tl_mechanism.truncated_laplace_mechanism(  # noqa: E731
        value, epsilon / 2, delta, rng, sensitivity
    )
    assert fails(check_truncated_laplace_release, 0.5, 1e-3, halved)


# --------------------------------------------------------------------------- selection

NOISE_LAWS = {"exponential": stats.expon, "gumbel": stats.gumbel_r, "laplace": stats.laplace}
SAMPLER_NOISE = {
    "A1 RNM-Exp": "exponential",
    "A2 P&F literal": "exponential",
    "A2 P&F batch": "exponential",
    "A3 Intermediate A": "exponential",
    "A4 Intermediate B": "exponential",
    "G RNM-Gumbel (EM)": "gumbel",
    "L RNM-Laplace": "laplace",
}
"""Each sampler of the selection_sampling module and the noise whose report-noisy-max it must equal in law
(P&F and Algorithms A, B are RNM-Exp by Ding et al., Thm 5; EM is RNM-Gumbel)."""
SELECTION_SCORES, SELECTION_SENSITIVITY = np.array([6.0, 4.5, 4.5, 1.5, 0.0]), 1.5


def rnm_pmf(scores, epsilon, sensitivity, noise):
    """``P(r) = ∫ f(x − q_r) Π_{j≠r} F(x − q_j) dx`` with scipy's density of ``noise`` at scale
    ``b = 2Δ/ε`` (Ding et al. §2), integrated here by adaptive quadrature: independent of the
    package's pmf evaluators and of its ``noise_scale``."""
    q, b = np.asarray(scores, dtype=float), 2.0 * sensitivity / epsilon
    law = NOISE_LAWS[noise](scale=b)

    def integrand(x, r):
        return law.pdf(x - q[r]) * np.prod([law.cdf(x - q[j]) for j in range(q.size) if j != r])

    lo, hi = q.min() - 60 * b, q.max() + 60 * b
    return np.array(
        [integrate.quad(integrand, lo, hi, args=(r,), points=np.unique(q), limit=400)[0] for r in range(q.size)]
    )


def check_sampler(label, epsilon, sample=None):
    sample = sample or selection_sampling.SAMPLERS[label]
    n = 20_000 if "literal" in label else GOF_SAMPLES
    pmf = rnm_pmf(SELECTION_SCORES, epsilon, SELECTION_SENSITIVITY, SAMPLER_NOISE[label])
    assert pmf.sum() == pytest.approx(1.0, abs=1e-9)
    draws = sample(SELECTION_SCORES, epsilon, SELECTION_SENSITIVITY, n, np.random.default_rng(3))
    assert_fits(draws, pmf, f"{label} at ε = {epsilon}")


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("label", list(SAMPLER_NOISE))
def test_every_selection_sampler_has_the_law_of_report_noisy_max_at_scale_2_delta_over_epsilon(label, epsilon):
    check_sampler(label, epsilon)


@pytest.mark.parametrize("label", list(SAMPLER_NOISE))
def test_selection_sampler_negative_control(label):
    """The same sampler with its noise scale doubled (ε/2) fails the fit."""
    wrong = lambda q, epsilon, *rest: selection_sampling.SAMPLERS[label](q, epsilon / 2, *rest)  # noqa: E731
    assert fails(check_sampler, label, 0.5, wrong)


def test_the_samplers_cover_the_selection_module():
    assert set(SAMPLER_NOISE) == set(selection_sampling.SAMPLERS)


def check_rnm_laplace(epsilon, sample=selection_sampling.sample_report_noisy_max):
    """Against the package's exact RNM-Laplace pmf (piecewise quadrature), the one the figures use."""
    scores = np.array([4.0, 3.0, 3.0, 1.0, 0.0])
    draws = sample(scores, epsilon, 1.0, GOF_SAMPLES, np.random.default_rng(3), "laplace")
    assert_fits(draws, selection.report_noisy_max_laplace_pmf(scores, epsilon), f"RNM-Laplace at ε = {epsilon}")


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_report_noisy_max_laplace_sampler_fits_its_exact_pmf(epsilon):
    check_rnm_laplace(epsilon)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_report_noisy_max_laplace_negative_control(epsilon):
    """A factor 2 in the Laplace scale (the sampler at ε/2) is detected."""
    doubled = lambda scores, epsilon, *rest: selection_sampling.sample_report_noisy_max(scores, epsilon / 2, *rest)  # noqa: E731
    assert fails(check_rnm_laplace, epsilon, doubled)


def em_pmf(scores, epsilon, dampening):
    """The exponential mechanism of PrivGene's Eq. 6: P ∝ exp(ε f / Δ) (written out here)."""
    logits = epsilon * np.asarray(scores) / dampening
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def check_eem_selection(epsilon, select=enhanced_exponential.select):
    scores, dampening = np.array([2.0, 1.5, 1.0, 0.0]), 1.0
    rng = np.random.default_rng(4)
    draws = np.array([select(scores, epsilon, dampening, 1, rng)[0] for _ in range(20_000)])
    assert_fits(draws, em_pmf(scores, epsilon, dampening), f"EEM at ε = {epsilon}")


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_eem_selection_is_the_exponential_mechanism_with_dampening(epsilon):
    check_eem_selection(epsilon)


def test_eem_selection_negative_control():
    halved = lambda scores, epsilon, *rest: enhanced_exponential.select(scores, epsilon / 2, *rest)  # noqa: E731
    assert fails(check_eem_selection, 2.0, halved)


def check_eem_two_draws(epsilon, select=enhanced_exponential.select):
    """Algorithm 2 with k = 2: two EM draws without replacement, each at ε/2, so the ordered pair
    (i, j) has probability ``p_i · p_j / (1 − p_i)`` with ``p = softmax((ε/2) f / Δ)``."""
    scores, dampening = np.array([3.0, 2.0, 1.5, 0.0]), 1.0
    p = em_pmf(scores, epsilon / 2, dampening)
    pairs = p[:, None] * p[None, :] / (1 - p[:, None])
    np.fill_diagonal(pairs, 0.0)
    rng = np.random.default_rng(5)
    draws = np.array([select(scores, epsilon, dampening, 2, rng) for _ in range(20_000)])
    assert_fits(draws[:, 0] * scores.size + draws[:, 1], pairs.ravel(), f"EEM k = 2 at ε = {epsilon}")


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_eem_with_two_draws_has_the_law_of_two_selections_at_half_the_budget(epsilon):
    check_eem_two_draws(epsilon)


def test_eem_two_draws_negative_control(monkeypatch):
    """Every draw spending the whole ε (no split) fails."""
    original = selection_sampling.sample_report_noisy_max
    monkeypatch.setattr(
        selection_sampling, "sample_report_noisy_max", lambda q, epsilon, *rest: original(q, 2 * epsilon, *rest)
    )
    assert fails(check_eem_two_draws, 0.5)


def test_eem_with_several_draws_splits_its_budget_per_draw(monkeypatch):
    """Algorithm 2 draws k candidates, each with ε/k and sensitivity Δ/2 of the RNM sampler."""
    seen = []
    original = selection_sampling.sample_report_noisy_max

    def spy(scores, epsilon, sensitivity, n, rng, noise="exponential"):
        seen.append((epsilon, sensitivity, noise))
        return original(scores, epsilon, sensitivity, n, rng, noise)

    monkeypatch.setattr(selection_sampling, "sample_report_noisy_max", spy)
    enhanced_exponential.select(np.arange(10.0), 0.6, 3.0, 3, np.random.default_rng(5))
    assert seen == [(pytest.approx(0.2), 1.5, "gumbel")] * 3


# --------------------------------------------------------------------------- PrivGene

PRIVGENE_CASES = {
    "lr EEM": ("lr", {"dampening": "eem", "m_prime": 1, "selector": "exponential_mechanism"}),
    "lr EM m'=10": ("lr", {"dampening": "em", "m_prime": 10, "selector": "exponential_mechanism"}),
    "svm EEM RNM-Exp": ("svm", {"dampening": "eem", "m_prime": 1, "selector": "rnm_exp"}),
    "svm EEM m'=4": ("svm", {"dampening": "eem", "m_prime": 4, "selector": "exponential_mechanism"}),
    "kmeans EM m'=10": ("kmeans", {"dampening": "em", "m_prime": 10, "selector": "exponential_mechanism"}),
}
"""Fitness and selection of each audited PrivGene configuration (several draws per round included)."""


def privgene_fitness(task: str):
    from dpreplication.replications.privgene.methods import make_fitness

    X, y = unit_rows(1_500, 3, 6)
    return make_fitness(task, X / 2, y, k=2) if task == "kmeans" else make_fitness(task, X, y)


def check_privgene_run(case, epsilon, monkeypatch):
    """One run: r = max(1, ⌊c n ε/m' + ½⌋) rounds, each audited by :meth:`PrivGeneAudit.check`."""
    task, selection_settings = PRIVGENE_CASES[case]
    audit = PrivGeneAudit(monkeypatch)
    fitness = privgene_fitness(task)
    c = 6e-3 * selection_settings["m_prime"]
    settings = genetic.PrivGeneSettings(m=20, c=c, constant_classifiers=2, **selection_settings)
    result = genetic.privgene(fitness, epsilon, settings, np.random.default_rng(7))
    (audit_run,) = audit.runs
    r = max(1, math.floor(c * 1_500 * epsilon / selection_settings["m_prime"] + 0.5))
    assert result.iterations == r == len(audit_run["rounds"]) and audit_run["epsilon"] == epsilon
    PrivGeneAudit.check(audit_run)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("case", list(PRIVGENE_CASES))
def test_privgene_spends_epsilon_over_r_per_selection_with_its_dampening(case, epsilon, monkeypatch):
    check_privgene_run(case, epsilon, monkeypatch)


def test_privgene_budget_negative_control(monkeypatch):
    """Every selection spending ε (no split over the r rounds) fails."""
    original = genetic.select
    monkeypatch.setattr(genetic, "select", lambda scores, budget, *rest: original(scores, budget * 2, *rest))
    assert fails(check_privgene_run, "lr EEM", 2.0, monkeypatch)


def test_privgene_draw_split_negative_control(monkeypatch):
    """The m' draws of a round each spending the round's whole budget fails."""
    original = genetic.select
    monkeypatch.setattr(
        genetic, "select", lambda scores, budget, d, k, *rest: original(scores, budget * k, d, k, *rest)
    )
    assert fails(check_privgene_run, "lr EM m'=10", 2.0, monkeypatch)


@pytest.mark.parametrize(
    "factor, case",
    [("delta1", "lr EM m'=10"), ("delta1", "kmeans EM m'=10"), ("delta2", "svm EEM m'=4"), ("delta2", "lr EEM")],
)
def test_privgene_dampening_negative_control(factor, case, monkeypatch):
    """A Δ1 or Δ2 half of the paper's (e.g. the factor 2 of Eq. 7 dropped) fails."""
    from dpreplication.learning import fitness as fitness_module

    cls = fitness_module.KMeansFitness if case.startswith("kmeans") else fitness_module.LinearFitness
    original = getattr(cls, factor)
    monkeypatch.setattr(cls, factor, lambda self, candidates, **hint: original(self, candidates, **hint) / 2)
    assert fails(check_privgene_run, case, 2.0, monkeypatch)


def test_privgene_iterations_negative_control(monkeypatch):
    """r computed with 2c (twice the rounds, each with half the budget) fails the paper's r."""
    original = genetic.iterations
    monkeypatch.setattr(genetic, "iterations", lambda c, *rest: original(2 * c, *rest))
    assert fails(check_privgene_run, "lr EEM", 0.5, monkeypatch)


def test_privgene_scores_negative_control(monkeypatch):
    """Scores doubled before the selection (= a selection at 2ε) fail."""
    from dpreplication.learning import fitness as fitness_module

    original = fitness_module.LinearFitness.scores
    monkeypatch.setattr(
        fitness_module.LinearFitness,
        "scores",
        lambda self, candidates, parent=None: 2 * original(self, candidates, parent=parent),
    )
    assert fails(check_privgene_run, "lr EEM", 0.5, monkeypatch)


# --------------------------------------------------------------------------- learning baselines


def check_private_erm(epsilon, loss, fit=objective_perturbation.fit_private_erm):
    X, y = unit_rows(600, 4, 8)
    n, d = X.shape[0], X.shape[1] + 1
    regulariser = 1e-12 if loss == "logistic" else 0.05
    c = 0.25 if loss == "logistic" else 1.0 / (2 * 0.5)
    rng = RecordingGenerator(9)
    fit(X, 2 * y - 1, epsilon, rng, loss=loss, regulariser=regulariser, huber_h=0.5)
    # CMS 2011 Algorithm 2, written out: ε' = ε − log(1 + 2c/(nΛ) + c²/(n²Λ²)), else ε/2
    epsilon_prime = epsilon - math.log(1 + 2 * c / (n * regulariser) + c**2 / (n * regulariser) ** 2)
    if epsilon_prime <= 0:
        epsilon_prime = epsilon / 2
    shapes = rng.parameter("gamma", 0, "shape")
    scales = rng.parameter("gamma", 1, "scale")
    assert shapes == [d] and scales == pytest.approx([2 / epsilon_prime]), (shapes, scales, epsilon_prime)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("loss", ["logistic", "huber"])
def test_private_erm_noise_norm_follows_cms_algorithm_2(epsilon, loss):
    check_private_erm(epsilon, loss)


def test_private_erm_negative_control(monkeypatch):
    original = objective_perturbation.erm_calibration
    monkeypatch.setattr(objective_perturbation, "erm_calibration", lambda epsilon, *rest: original(2 * epsilon, *rest))
    assert fails(check_private_erm, 0.5, "huber")


def check_functional_mechanism(epsilon):
    X, y = unit_rows(500, 3, 10)
    rng = RecordingGenerator(11)
    functional_mechanism.fit_functional_mechanism(X, y, epsilon, rng)
    d = X.shape[1] + 1
    # Δ = d²/4 + 3d (Zhang et al. 2012) on the d² + d coefficients, one Laplace draw for all of them
    assert rng.laplace_scales() == pytest.approx([(d**2 / 4 + 3 * d) / epsilon])


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_functional_mechanism_noise_scale(epsilon):
    check_functional_mechanism(epsilon)


def test_functional_mechanism_negative_control(monkeypatch):
    monkeypatch.setattr(functional_mechanism, "functional_mechanism_sensitivity", lambda d: d**2 / 4 + 3 * d - d)
    assert fails(check_functional_mechanism, 0.5)


def check_private_svm(epsilon):
    X, y = unit_rows(400, 3, 12)
    rng = RecordingGenerator(13)
    output_perturbation.fit_private_svm(X, 2 * y - 1, epsilon, rng, C=10.0)
    d, n = X.shape[1] + 1, X.shape[0]
    assert rng.laplace_scales() == pytest.approx([4 * 10.0 * math.sqrt(d) / (n * epsilon)])  # 4·L·C·κ·√d/(nε)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_private_svm_noise_scale(epsilon):
    check_private_svm(epsilon)


def test_private_svm_negative_control(monkeypatch):
    monkeypatch.setattr(output_perturbation, "LIPSCHITZ", 0.5)
    monkeypatch.setattr(
        output_perturbation,
        "private_svm_sensitivity",
        lambda n, d, C=10.0, lipschitz=0.5, feature_norm=1.0: 4.0 * lipschitz * C * feature_norm * np.sqrt(d) / n,
    )
    assert fails(check_private_svm, 0.5)


def check_gupt(epsilon, eps_fraction):
    outputs = np.random.default_rng(14).uniform(-1, 1, (40, 3))
    rng = RecordingGenerator(15)
    gupt.gupt_aggregate(outputs, (-5.0, 5.0), epsilon, rng, eps_fraction)
    assert rng.laplace_scales() == pytest.approx([3 * 10.0 / (40 * eps_fraction * epsilon)])  # p·range/(ℓ·φ·ε)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("eps_fraction", [1.0, 0.5])
def test_gupt_noise_scale(epsilon, eps_fraction):
    check_gupt(epsilon, eps_fraction)


def test_gupt_negative_control(monkeypatch):
    original = gupt.laplace_mechanism
    monkeypatch.setattr(
        gupt,
        "laplace_mechanism",
        lambda value, epsilon, rng, sensitivity: original(value, epsilon, rng, sensitivity / 2),
    )
    assert fails(check_gupt, 0.5, 1.0)


def check_majority_classifier(epsilon):
    rng = RecordingGenerator(16)
    models.majority_classifier(np.array([1, 0, 1, 1, 0]), epsilon, rng)
    assert rng.laplace_scales() == pytest.approx([1 / epsilon])  # a count: sensitivity 1


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_majority_classifier_noise_scale(epsilon):
    check_majority_classifier(epsilon)


def test_majority_classifier_negative_control(monkeypatch):
    original = models.laplace_mechanism
    monkeypatch.setattr(
        models, "laplace_mechanism", lambda value, epsilon, rng, sensitivity: original(value, epsilon, rng, 2.0)
    )
    assert fails(check_majority_classifier, 0.5)


# --------------------------------------------------------------------------- GNMax


def check_gnmax(sigma, aggregate=gnmax.gnmax_aggregate):
    """P(argmax = 0) for counts (n0, n1) is Φ((n0 − n1)/(√2 σ)) (written out here)."""
    counts = np.tile([7.0, 4.0], (GOF_SAMPLES, 1))
    first = int((aggregate(counts, sigma, np.random.default_rng(17)) == 0).sum())
    p = stats.norm.cdf(3.0 / (math.sqrt(2) * sigma))
    p_value = stats.binomtest(first, GOF_SAMPLES, p).pvalue
    assert p_value >= P_FLOOR, (first / GOF_SAMPLES, p)


@pytest.mark.parametrize("sigma", [2.0, 10.0])
def test_gnmax_releases_argmax_of_gaussian_noisy_counts(sigma):
    check_gnmax(sigma)


def test_gnmax_negative_control():
    halved = lambda counts, sigma, rng: gnmax.gnmax_aggregate(counts, sigma / 2, rng)  # noqa: E731
    assert fails(check_gnmax, 2.0, halved)


# --------------------------------------------------------------------------- DaRRM and subsampling

VOTES_PER_COUNT = 8_000


def release_by_count(sample, K, seed):
    """``(L, output)`` of ``sample`` on ``VOTES_PER_COUNT`` vote rows with each count ``L = 0..K`` of ones."""
    counts = np.repeat(np.arange(K + 1), VOTES_PER_COUNT)
    votes = (np.arange(K)[None, :] < counts[:, None]).astype(np.int64)
    votes = np.random.default_rng(seed).permuted(votes, axis=1)
    return counts, np.asarray(sample(votes, np.random.default_rng(seed + 1)))


def assert_release_probabilities(counts, outputs, probability_one, label):
    """Per L, a two-sided binomial test of ``P(output = 1 | L)`` (Bonferroni over the K + 1 counts)."""
    for count, p in enumerate(probability_one):
        released = outputs[counts == count]
        p_value = (
            stats.binomtest(int(released.sum()), released.size, p).pvalue if 0 < p < 1 else float(np.all(released == p))
        )
        assert p_value >= P_FLOOR / len(probability_one), f"{label}, L = {count}: {released.mean():.4f} vs {p:.4f}"


DARRM_GAMMA = np.array([0.45, 0.3, 0.2, 0.1, 0.1, 0.2, 0.3, 0.45])


def check_darrm_release(gamma, sample=majority.sample_darrm):
    """Algorithm 1 of DaRRM: with L ones among K votes, release the majority with probability γ(L),
    else a fair coin: ``P(1 | L) = γ(L)·1{L > K/2} + (1 − γ(L))/2`` (written out here)."""
    K = gamma.size - 1
    counts, outputs = release_by_count(lambda votes, rng: sample(votes, gamma, rng, voter_epsilon=1.0), K, 20)
    levels = np.arange(K + 1)
    assert_release_probabilities(counts, outputs, gamma * (levels > K / 2) + (1 - gamma) / 2, "DaRRM")


@pytest.mark.parametrize("gamma", [DARRM_GAMMA, majority.gamma_subsampling(7, 3)], ids=["gamma", "gamma_sub"])
def test_darrm_releases_the_majority_with_probability_gamma(gamma):
    check_darrm_release(gamma)


def test_darrm_release_negative_control():
    def doubled(votes, gamma, rng, **voters):
        return majority.sample_darrm(votes, np.minimum(2 * gamma, 1.0), rng, **voters)

    assert fails(check_darrm_release, DARRM_GAMMA, doubled)


def subsample_probability(K, m):
    """``h_m(L) = P(H > m/2) + ½ P(H = m/2)``, ``H ~ Hypergeom(K, L, m)`` (Lemma 3.1, written out here)."""
    h = [stats.hypergeom(K, count, m) for count in range(K + 1)]
    return np.array([law.sf(m // 2) + (0.5 * law.pmf(m // 2) if m % 2 == 0 else 0.0) for law in h])


def check_subsample_majority(m, K=7, sample=majority.subsample_majority):
    counts, outputs = release_by_count(lambda votes, rng: sample(votes, m, rng, voter_epsilon=1.0), K, 21)
    assert_release_probabilities(counts, outputs, subsample_probability(K, m), f"subsampling m = {m}")


@pytest.mark.parametrize("m", [1, 2, 3])
def test_subsample_majority_uses_m_random_teachers(m):
    """Its privacy is that of m teachers (mε by composition), so the released law must be h_m."""
    check_subsample_majority(m)


def test_subsample_majority_negative_control():
    doubled = lambda votes, m, rng, **voters: majority.subsample_majority(votes, 2 * m, rng, **voters)  # noqa: E731
    assert fails(check_subsample_majority, 2, sample=doubled)
