"""Tests of :mod:`dpreplication.learning.objective_perturbation`, PrivateERM (Chaudhuri, Monteleoni
& Sarwate 2011, Algorithm 2; PrivGene spec §3.4, check 9). Its docstrings state the calibration's
two branches (``ε' = ε − log(1 + 2c/(nΛ) + c²/(n²Λ²))`` with no extra regulariser, else
``ε' = ε/2`` and ``Δ = c/(n(e^{ε/4} − 1)) − Λ``), a noise vector whose norm is Gamma(d, 2/ε') and
whose direction is uniform, and a budget out of range refused. The calibration and the noise are
checked against diffprivlib's ``Vector`` mechanism, the fit at a large ε against the non-private
fits and diffprivlib's logistic regression."""

import math

import numpy as np
import pytest
from baseline_helpers import synthetic
from scipy import stats

from dpreplication.learning import models
from dpreplication.learning import objective_perturbation as erm


def test_9_erm_branch_logic():
    eps, n = 1.0, 1000
    for loss in erm.LOSSES:
        c = erm.loss_curvature(loss)
        loose = erm.erm_calibration(eps, n, 1.0, c)
        assert loose.extra_regulariser == 0.0
        assert loose.epsilon_prime == pytest.approx(eps - math.log(1 + 2 * c / n + c * c / n**2), rel=1e-12)
        tight = erm.erm_calibration(eps, n, 1e-12, c)
        assert tight.epsilon_prime == eps / 2
        assert tight.extra_regulariser == pytest.approx(c / (n * math.expm1(eps / 4)) - 1e-12, rel=1e-12)
    assert erm.loss_curvature("logistic") == 0.25 and erm.loss_curvature("huber", 0.5) == 1.0


@pytest.mark.parametrize("epsilon", [math.nan, math.inf, 0.0])
def test_9_erm_refuses_a_budget_out_of_range(epsilon):
    """Before, ε = NaN gave ``(ε', Δ) = (nan, nan)`` (``max(nan, 0)`` is NaN), a NaN noise norm."""
    with pytest.raises(ValueError, match=f"epsilon must be positive and finite, got {epsilon}"):
        erm.erm_calibration(epsilon, 1000, 1e-12, 0.25)
    with pytest.raises(ValueError, match=f"epsilon_prime must be positive and finite, got {epsilon}"):
        erm.sample_erm_noise(3, epsilon, np.random.default_rng(0))


def test_9_erm_noise_norm_and_direction():
    d, eps_prime = 7, 0.8
    rng = np.random.default_rng(12)
    noise = np.array([erm.sample_erm_noise(d, eps_prime, rng) for _ in range(10_000)])
    norms = np.linalg.norm(noise, axis=1)
    assert norms.mean() == pytest.approx(2 * d / eps_prime, rel=0.03)
    assert stats.kstest(norms, stats.gamma(d, scale=2 / eps_prime).cdf).pvalue > 1e-3
    directions = noise / norms[:, None]
    assert np.all(np.abs(directions.mean(axis=0)) < 4 / math.sqrt(d * noise.shape[0]))
    np.testing.assert_allclose((directions**2).mean(axis=0), 1 / d, atol=0.01)


def test_9_erm_matches_diffprivlib_vector_mechanism():
    mechanisms = pytest.importorskip(
        "diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')"
    )
    d, n, eps = 6, 2000, 0.7
    zero = lambda f: (0.0, np.zeros(d))  # noqa: E731
    for loss in erm.LOSSES:
        c = erm.loss_curvature(loss)
        for regulariser in (1.0, 1e-12):
            ours = erm.erm_calibration(eps, n, regulariser, c)
            norms = []
            for seed in range(1500):
                vector = mechanisms.Vector(
                    epsilon=eps,
                    function_sensitivity=c,
                    data_sensitivity=1.0,
                    dimension=d,
                    alpha=n * regulariser,
                    n=n,
                    random_state=np.random.RandomState(seed),
                )
                perturbed = vector.randomise(zero)
                base = perturbed(np.zeros(d))[1]
                norms.append(np.linalg.norm(base) * n)
            extra = perturbed(np.eye(d)[0])[1] - base
            assert extra[0] == pytest.approx(ours.extra_regulariser, rel=1e-9, abs=1e-15)
            rng = np.random.default_rng(int(regulariser > 1e-6))
            our_norms = [np.linalg.norm(erm.sample_erm_noise(d, ours.epsilon_prime, rng)) for _ in range(1500)]
            assert stats.ks_2samp(norms, our_norms).pvalue > 1e-3
            assert np.mean(norms) == pytest.approx(2 * d / ours.epsilon_prime, rel=0.05)


@pytest.mark.parametrize("loss", erm.LOSSES)
def test_9_erm_at_huge_epsilon_is_close_to_noprivacy(loss):
    X, y01, y = synthetic(4000, 11, seed=21)
    omega = erm.fit_private_erm(X, y, 1e3, np.random.default_rng(2), loss=loss)
    if loss == "logistic":
        gap = models.misclassification_rate(X, y01, omega, "lr") - models.misclassification_rate(
            X, y01, models.fit_logistic_regression(X, y01), "lr"
        )
    else:
        gap = models.misclassification_rate(X, y, omega, "svm") - models.misclassification_rate(
            X, y, models.fit_linear_svm(X, y, models.PRIVATE_SVM_C), "svm"
        )
    assert abs(gap) <= 0.02
    again = erm.fit_private_erm(X, y, 1e3, np.random.default_rng(2), loss=loss)
    np.testing.assert_array_equal(omega, again)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_9_erm_logistic_agrees_with_diffprivlib_logistic_regression_at_large_epsilon():
    dp_models = pytest.importorskip("diffprivlib.models", reason="the oracle diffprivlib is absent (extra 'oracles')")
    X, y01, y = synthetic(4000, 6, seed=31)
    ours = erm.fit_private_erm(X, y, 1e3, np.random.default_rng(0))
    reference = dp_models.LogisticRegression(
        epsilon=1e3, data_norm=math.sqrt(5), C=1e6, max_iter=1000, random_state=0
    ).fit(X, y01)
    agreement = np.mean(models.predict_linear(X, ours, "lr") == reference.predict(X))
    assert agreement >= 0.98
