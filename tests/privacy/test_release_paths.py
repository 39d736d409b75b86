"""Release-path audits at moderate ε: every function that releases a private output hands its noise
the parameters its guarantee needs, computed here independently from the papers' formulas.

Two kinds of check: a spy on the random draws (a Generator that records each call's parameters)
where the noise is drawn with its scale, and a goodness-of-fit test of the released output's law
where it is not. Each class of check has a negative control: the same check run on a deliberately
wrong implementation (a factor 2 in ε or in the sensitivity) must fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpreplication.learning import functional_mechanism, genetic, models, objective_perturbation, output_perturbation
from dpreplication.learning import sample_and_aggregate as gupt
from dpreplication.learning.fitness import LogisticFitness
from dpreplication.mechanisms import additive, enhanced_exponential, majority, selection

EPSILONS = [0.1, 0.5, 2.0]
GOF_SAMPLES = 60_000
P_FLOOR = 1e-6
"""A correct sampler fails a goodness-of-fit test with probability 1e-6; every test is seeded."""


class RecordingGenerator:
    """A numpy Generator that records the name and arguments of every draw, then draws as usual."""

    def __init__(self, seed: int = 0):
        self._rng = np.random.default_rng(seed)
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name):
        attribute = getattr(self._rng, name)
        if not callable(attribute):
            return attribute

        def recorded(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return attribute(*args, **kwargs)

        return recorded

    def parameter(self, method: str, position: int, keyword: str) -> list[float]:
        """The values a parameter took in every call of ``method`` (positional or keyword)."""
        return [
            float(kwargs[keyword]) if keyword in kwargs else float(args[position])
            for name, args, kwargs in self.calls
            if name == method
        ]


def laplace_scales(rng: RecordingGenerator) -> list[float]:
    return rng.parameter("laplace", 1, "scale")


def fails(check, *args) -> bool:
    """Whether ``check`` raises AssertionError: a negative control must make its check fail."""
    try:
        check(*args)
    except AssertionError:
        return True
    return False


def unit_rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features in [−1, 1]^d and a label in {0, 1} that depends on the first feature."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    return X, (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(float)


# --------------------------------------------------------------------------- additive noise


def check_laplace_mechanism(epsilon):
    rng = RecordingGenerator(1)
    additive.laplace_mechanism(np.zeros(3), epsilon, rng, sensitivity=2.5)
    assert laplace_scales(rng) == pytest.approx([2.5 / epsilon])


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_laplace_mechanism_scale_is_sensitivity_over_epsilon(epsilon):
    check_laplace_mechanism(epsilon)


def test_laplace_negative_control(monkeypatch):
    monkeypatch.setattr(additive, "laplace_scale", lambda epsilon, sensitivity=1.0: sensitivity / (2 * epsilon))
    assert fails(check_laplace_mechanism, 0.5)


def truncated_laplace_cdf(x, epsilon, delta, sensitivity):
    """Geng et al. Def. 3, written out here: density B e^{−|x|/λ} on [−A, A]."""
    lam = sensitivity / epsilon
    bound = lam * math.log1p((math.exp(epsilon) - 1) / (2 * delta))
    mass = lambda t: np.sign(t) * (1 - np.exp(-np.abs(t) / lam))  # ∫_0^t e^{−|u|/λ} du / λ  # noqa: E731
    return np.clip((mass(x) + mass(bound)) / (2 * mass(bound)), 0, 1), bound


def check_truncated_laplace_release(epsilon, delta, release=additive.truncated_laplace_mechanism):
    draws = release(np.zeros(GOF_SAMPLES), epsilon, delta, np.random.default_rng(2), 1.5)
    _, bound = truncated_laplace_cdf(0.0, epsilon, delta, 1.5)
    assert np.abs(draws).max() <= bound
    p_value = stats.kstest(draws, lambda x: truncated_laplace_cdf(x, epsilon, delta, 1.5)[0]).pvalue
    assert p_value >= P_FLOOR, p_value


@pytest.mark.parametrize("epsilon, delta", [(0.1, 0.05), (0.5, 1e-3), (2.0, 1e-6)])
def test_truncated_laplace_release_has_the_stated_law(epsilon, delta):
    check_truncated_laplace_release(epsilon, delta)


def test_truncated_laplace_negative_control():
    halved = lambda value, epsilon, delta, rng, sensitivity: additive.truncated_laplace_mechanism(  # noqa: E731
        value, epsilon / 2, delta, rng, sensitivity
    )
    assert fails(check_truncated_laplace_release, 0.5, 1e-3, halved)


# --------------------------------------------------------------------------- selection


def check_rnm_laplace(epsilon, sample=selection.sample_report_noisy_max):
    scores = np.array([4.0, 3.0, 3.0, 1.0, 0.0])
    draws = sample(scores, epsilon, 1.0, GOF_SAMPLES, np.random.default_rng(3), "laplace")
    pmf = selection.report_noisy_max_laplace_pmf(scores, epsilon)
    observed = np.bincount(draws, minlength=scores.size)
    p_value = stats.chisquare(observed, GOF_SAMPLES * pmf).pvalue
    assert p_value >= P_FLOOR, (observed, GOF_SAMPLES * pmf)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_report_noisy_max_laplace_sampler_fits_its_exact_pmf(epsilon):
    check_rnm_laplace(epsilon)


def test_report_noisy_max_laplace_negative_control():
    doubled = lambda scores, epsilon, *rest: selection.sample_report_noisy_max(scores, epsilon / 2, *rest)  # noqa: E731
    assert fails(check_rnm_laplace, 0.5, doubled)


def em_pmf(scores, epsilon, dampening):
    """The exponential mechanism of PrivGene's Eq. 6: P ∝ exp(ε f / Δ) (written out here)."""
    logits = epsilon * np.asarray(scores) / dampening
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def check_eem_selection(epsilon, select=enhanced_exponential.select):
    scores, dampening = np.array([2.0, 1.5, 1.0, 0.0]), 1.0
    rng = np.random.default_rng(4)
    draws = np.array([select(scores, epsilon, dampening, 1, rng)[0] for _ in range(20_000)])
    observed = np.bincount(draws, minlength=scores.size)
    p_value = stats.chisquare(observed, draws.size * em_pmf(scores, epsilon, dampening)).pvalue
    assert p_value >= P_FLOOR, observed


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_eem_selection_is_the_exponential_mechanism_with_dampening(epsilon):
    check_eem_selection(epsilon)


def test_eem_selection_negative_control():
    halved = lambda scores, epsilon, *rest: enhanced_exponential.select(scores, epsilon / 2, *rest)  # noqa: E731
    assert fails(check_eem_selection, 2.0, halved)


def test_eem_with_several_draws_splits_its_budget_per_draw(monkeypatch):
    """Algorithm 2 draws k candidates, each with ε/k and sensitivity Δ/2 of the RNM sampler."""
    seen = []
    original = selection.sample_report_noisy_max

    def spy(scores, epsilon, sensitivity, n, rng, noise="exponential"):
        seen.append((epsilon, sensitivity, noise))
        return original(scores, epsilon, sensitivity, n, rng, noise)

    monkeypatch.setattr(selection, "sample_report_noisy_max", spy)
    enhanced_exponential.select(np.arange(10.0), 0.6, 3.0, 3, np.random.default_rng(5))
    assert seen == [(pytest.approx(0.2), 1.5, "gumbel")] * 3


# --------------------------------------------------------------------------- PrivGene


def check_privgene_budget(epsilon, run=genetic.privgene):
    X, y = unit_rows(4_000, 3, 6)
    fitness = LogisticFitness(X, y)
    settings = genetic.PrivGeneSettings(m=20, c=2e-3)
    seen = []
    original = genetic.select

    def spy(scores, budget, dampening, k, rng, selector):
        seen.append((budget, k))
        return original(scores, budget, dampening, k, rng, selector)

    genetic.select = spy
    try:
        result = run(fitness, epsilon, settings, np.random.default_rng(7))
    finally:
        genetic.select = original
    r = max(1, round(2e-3 * 4_000 * epsilon / 1))  # r = max(1, round(c n ε / m')), m' = 1 with EEM
    assert result.iterations == r == len(seen)
    assert [budget for budget, _ in seen] == pytest.approx([epsilon / r] * r)
    assert sum(budget for budget, _ in seen) == pytest.approx(epsilon)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 2.0])
def test_privgene_spends_epsilon_over_r_per_selection(epsilon):
    check_privgene_budget(epsilon)


def test_privgene_budget_negative_control():
    doubled = lambda fitness, epsilon, settings, rng: genetic.privgene(  # noqa: E731
        fitness, 2 * epsilon, settings, rng, n_iterations=genetic.iterations(settings.c, fitness.size, epsilon, 1)
    )
    assert fails(check_privgene_budget, 0.5, doubled)


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
    assert laplace_scales(rng) == pytest.approx([(d**2 / 4 + 3 * d) / epsilon] * 2)  # Δ = d²/4 + 3d (Zhang et al. 2012)


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
    assert laplace_scales(rng) == pytest.approx([4 * 10.0 * math.sqrt(d) / (n * epsilon)])  # 4·L·C·κ·√d/(nε)


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
    assert laplace_scales(rng) == pytest.approx([3 * 10.0 / (40 * eps_fraction * epsilon)])  # p·range/(ℓ·φ·ε)


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
    assert laplace_scales(rng) == pytest.approx([1 / epsilon])  # a count: sensitivity 1


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


def check_gnmax(sigma, aggregate=majority.gnmax_aggregate):
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
    halved = lambda counts, sigma, rng: majority.gnmax_aggregate(counts, sigma / 2, rng)  # noqa: E731
    assert fails(check_gnmax, 2.0, halved)


# --------------------------------------------------------------------------- the comparison jobs' call sites

GRID = [0.1, 0.5, 2.0]
RELEASERS = {
    "PrivGene": ("dpreplication.replications.privgene", "privgene", 1),
    "PrivateERM": ("dpreplication.learning.objective_perturbation", "fit_private_erm", 2),
    "FM": ("dpreplication.learning.functional_mechanism", "fit_functional_mechanism", 2),
    "PrivateSVM": ("dpreplication.learning.output_perturbation", "privatise_svm_weights", 2),
    "GUPT": ("dpreplication.learning.sample_and_aggregate", "gupt_aggregate", 2),
    "Majority": ("dpreplication.learning.models", "majority_classifier", 1),
}
"""method -> (module, releasing function, position of its ε argument)."""


@pytest.mark.parametrize("task, method", [("lr", m) for m in RELEASERS if m != "PrivateSVM"] + [("svm", "PrivateSVM")])
def test_comparison_jobs_hand_each_releaser_the_grid_epsilon(task, method, monkeypatch):
    """Every (fold, ε) of a Figs 3–4 job releases with exactly that ε, once."""
    import importlib

    from dpreplication.data.tabular import TabularData
    from dpreplication.replications import privgene_comparison as pc

    module_name, name, position = RELEASERS[method]
    module = importlib.import_module(module_name)
    original, seen = getattr(module, name), []

    def spy(*args, **kwargs):
        seen.append(float(args[position]))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    X, y = unit_rows(300, 3, 18)
    data = TabularData(name="toy", features=X, labels=y, columns=("a", "b", "c"), source="test")
    settings = {"algorithm": {"m": 20, "c": 2e-3, "svm_C": 10.0}} if method == "PrivGene" else {}
    frame = pc.comparison_job(data, task, method, 0, seed=1, epsilons=GRID, folds=3, use_folds=[0, 2], **settings)
    assert sorted(seen) == sorted(GRID * 2), seen
    assert sorted(frame.epsilon.tolist()) == sorted(GRID * 2) and frame.failure.eq("").all()
