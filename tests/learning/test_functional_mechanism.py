"""Tests of :mod:`dpreplication.learning.functional_mechanism`, the Functional Mechanism for logistic
regression (Zhang et al. 2012; PrivGene spec §3.3, check 8). Its docstrings state that every
coefficient of the loss's second-order Taylor expansion receives Laplace noise of scale Δ/ε with
``Δ = d²/4 + 3d``, a bound on the L1 change of the coefficients when one tuple is replaced (the
symmetrised quadratic form halving the off-diagonal variance), and that at a huge ε the fit is the
Taylor expansion's minimiser, close to the non-private logistic regression."""

import math

import numpy as np
import pytest
from baseline_helpers import ks_laplace, synthetic

from dpreplication.learning import functional_mechanism as fm
from dpreplication.learning import models


def test_8_fm_sensitivity_formula_bounds_every_replacement():
    d = 5
    assert fm.functional_mechanism_sensitivity(d) == d * d / 4 + 3 * d
    assert fm.functional_mechanism_sensitivity(124) == 4216 and fm.functional_mechanism_sensitivity(33) == 371.25
    rng = np.random.default_rng(4)
    corners = rng.choice([-1.0, 1.0], size=(400, d - 1))
    tuples = np.vstack([corners, rng.uniform(-1, 1, (400, d - 1))])
    labels = rng.integers(0, 2, tuples.shape[0]).astype(float)
    coefficients = np.array(
        [np.r_[q.ravel(), b] for q, b in (fm.taylor_coefficients(x[None], [y]) for x, y in zip(tuples, labels))]
    )
    largest = np.max(np.abs(coefficients[:, None, :] - coefficients[None, :, :]).sum(axis=2))
    assert largest <= fm.functional_mechanism_sensitivity(d)
    # one corner tuple's coefficients have L1 norm d/2 + d²/8; Δ = 2·(that + d) is the paper's looser bound
    assert np.max(np.abs(coefficients).sum(axis=1)) == pytest.approx(d / 2 + d * d / 8, rel=1e-12)


def test_8_fm_at_huge_epsilon_is_the_taylor_minimiser_and_close_to_noprivacy():
    X, y01, _ = synthetic(5000, 11, seed=8, signal=0.5)
    quadratic, linear = fm.taylor_coefficients(X, y01)
    exact = -0.5 * np.linalg.solve(quadratic, linear)
    omega = fm.fit_functional_mechanism(X, y01, 1e9, np.random.default_rng(0))
    np.testing.assert_allclose(omega, exact, rtol=1e-6, atol=1e-6)
    reference = models.fit_logistic_regression(X, y01)
    gap = models.misclassification_rate(X, y01, omega, "lr") - models.misclassification_rate(X, y01, reference, "lr")
    assert abs(gap) <= 0.03


def test_8_fm_noise_has_the_laplace_scale_of_the_sensitivity():
    d, eps = 4, 2.0
    scale = fm.functional_mechanism_sensitivity(d) / eps
    quadratic, linear = np.eye(d), np.arange(d, dtype=float)
    rng = np.random.default_rng(9)
    draws = [fm.perturb_coefficients(quadratic, linear, eps, rng) for _ in range(10_000)]
    linear_noise = np.concatenate([b - linear for _, b in draws])
    diagonal_noise = np.concatenate([np.diag(q) - 1.0 for q, _ in draws])
    off_diagonal = np.array([q[0, 1] for q, _ in draws])
    assert linear_noise.std() == pytest.approx(math.sqrt(2) * scale, rel=0.03)
    assert diagonal_noise.std() == pytest.approx(math.sqrt(2) * scale, rel=0.03)
    assert off_diagonal.std() == pytest.approx(scale, rel=0.03)  # (N + Nᵀ)/2 halves the variance
    assert all(np.array_equal(q, q.T) for q, _ in draws[:10])
    assert ks_laplace(linear_noise, scale) > 1e-3
    assert ks_laplace(linear_noise, 1.1 * scale) < 1e-6
