"""Tests of :mod:`dpreplication.learning.output_perturbation`, PrivateSVM (Rubinstein, Bartlett, Huang
& Taft 2012; PrivGene spec §3.5, check 10). Its docstrings state that replacing one tuple moves the
SVM's weights by at most ``4·L·C·κ·√d/n`` in L1 (here on random replacements, and not vacuously),
so that Laplace noise of scale ``λ = 4·L·C·κ·√d/(n·ε)`` on each weight is ε-DP, and that the
released model is the trained weights plus that noise, mapped back to the unscaled features
(divided by √d)."""

import math

import numpy as np
import pytest
from baseline_helpers import ks_laplace, synthetic

from dpreplication.learning import output_perturbation as psvm


def test_10_private_svm_noise_scale_formula():
    n, d, eps = 39_074, 124, 0.5
    assert psvm.private_svm_noise_scale(n, d, eps) == 4 * 1 * 10 * 1 * math.sqrt(d) / (n * eps)
    assert psvm.private_svm_noise_scale(n, d, 1.0) == pytest.approx(0.0114, abs=5e-5)


def test_10_private_svm_replace_one_sensitivity():
    X, _, y = synthetic(500, 6, seed=41)
    n, d = 500, 6
    w = psvm.fit_svm_weights(X, y)
    rng = np.random.default_rng(42)
    bound = psvm.private_svm_sensitivity(n, d)
    shifts = []
    for _ in range(50):
        Xn, yn = X.copy(), y.copy()
        i = rng.integers(n)
        Xn[i] = rng.choice([-1.0, 1.0], size=d - 1) if rng.random() < 0.5 else rng.uniform(-1, 1, d - 1)
        yn[i] = -y[i] if rng.random() < 0.7 else y[i]
        shifts.append(np.abs(psvm.fit_svm_weights(Xn, yn) - w).sum())
    assert max(shifts) <= bound
    assert max(shifts) >= 0.1 * bound


def test_10_private_svm_noise_is_laplace_with_the_stated_scale():
    n, d, eps = 1000, 5, 0.8
    scale = psvm.private_svm_noise_scale(n, d, eps)
    rng = np.random.default_rng(43)
    weights = np.linspace(-1, 1, d)
    released = np.array([psvm.privatise_svm_weights(weights, n, eps, rng) for _ in range(20_000)])
    noise = (released * math.sqrt(d) - weights).ravel()
    assert ks_laplace(noise, scale) > 1e-3
    assert ks_laplace(noise, 1.1 * scale) < 1e-6
    fresh = psvm.privatise_svm_weights(weights, n, eps, np.random.default_rng(1))
    assert np.array_equal(fresh, psvm.privatise_svm_weights(weights, n, eps, np.random.default_rng(1)))


def test_10_private_svm_fit_composes_training_and_noise():
    X, _, y = synthetic(800, 6, seed=44)
    omega = psvm.fit_private_svm(X, y, 1e6, np.random.default_rng(0))
    np.testing.assert_allclose(omega, psvm.fit_svm_weights(X, y) / math.sqrt(6), atol=1e-3)
