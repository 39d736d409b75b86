"""Tests of :mod:`dpreplication.learning.models`, the non-private reference fits and shared model
utilities of PrivGene's comparison (spec §1, §3.1, §3.2; check 12). Its docstrings state the
prediction conventions (the positive class iff ``z > 0``, the bias last, 0/1 labels for LR and ±1
for the SVM, other labels refused); that the logistic regression and the Huber-smoothed SVM are the
minimisers of their objectives (oracles: scikit-learn, cvxpy/Clarabel, liblinear); that a solver
stopped before convergence raises ``ConvergenceError`` rather than return a partial fit; that
Lloyd's k-means is seeded and its variance exact; and that the Majority baseline thresholds a
count with Laplace noise of scale 1/ε, so its output law is ε-DP."""

import numpy as np
import pytest
from baseline_helpers import synthetic
from scipy import stats

from dpreplication.learning import functional_mechanism as fm
from dpreplication.learning import models
from dpreplication.learning import objective_perturbation as erm

# --------------------------------------------------------------------------- shared model utilities


def test_prediction_conventions_and_stacked_error_rates():
    X = np.array([[0.5, -1.0], [-1.0, 1.0], [0.0, 0.0]])
    omega = np.array([1.0, 0.0, -0.25])  # z = x1 - 0.25 → (+, -, -)
    np.testing.assert_array_equal(models.predict_linear(X, omega, "lr"), [1, 0, 0])
    np.testing.assert_array_equal(models.predict_linear(X, omega, "svm"), [1, -1, -1])
    stack = np.array([omega, -omega, [0.0, 0.0, 1.0]])
    rates = models.misclassification_rate(X, np.array([1.0, 0.0, 1.0]), stack, "lr")
    np.testing.assert_allclose(
        rates, [models.misclassification_rate(X, np.array([1.0, 0.0, 1.0]), w, "lr") for w in stack]
    )
    np.testing.assert_allclose(rates, [1 / 3, 2 / 3, 1 / 3])
    with pytest.raises(ValueError, match="task"):
        models.predict_linear(X, omega, "svr")
    with pytest.raises(ValueError, match="labels"):
        models.fit_linear_svm(X, np.array([1.0, 0.0, 1.0]), 1.0)
    with pytest.raises(ValueError, match="labels"):
        erm.fit_private_erm(X, np.array([1.0, 0.0, 1.0]), 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="labels"):
        fm.fit_functional_mechanism(X, np.array([1.0, -1.0, 1.0]), 1.0, np.random.default_rng(0))


def test_huber_hinge_pieces_bounds_and_derivative():
    h = 0.3
    margin = np.linspace(-2.0, 3.0, 2001)
    value, slope = models.huber_hinge(margin, h)
    hinge = np.maximum(0.0, 1.0 - margin)
    assert np.all(value >= hinge - 1e-15) and np.all(value - hinge <= h / 4 + 1e-15)
    window = np.abs(1.0 - margin) <= h
    np.testing.assert_allclose(value[window], (1 + h - margin[window]) ** 2 / (4 * h))
    np.testing.assert_allclose(value[margin < 1 - h], 1 - margin[margin < 1 - h])
    assert np.all(value[margin > 1 + h] == 0)
    step = 1e-6
    numeric = (models.huber_hinge(margin + step, h)[0] - models.huber_hinge(margin - step, h)[0]) / (2 * step)
    np.testing.assert_allclose(slope, numeric, atol=1e-6)
    assert np.all(np.diff(slope) >= 0) and np.all(np.abs(slope) <= 1)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_logistic_regression_matches_scikit_learn():
    linear_model = pytest.importorskip("sklearn.linear_model", reason="the reference solver is absent")
    X, y01, _ = synthetic(3000, 8, seed=1)
    omega = models.fit_logistic_regression(X, y01)
    reference = linear_model.LogisticRegression(penalty=None, tol=1e-12, max_iter=10_000).fit(X, y01)
    np.testing.assert_allclose(omega, np.r_[reference.coef_[0], reference.intercept_], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n, d, C", [(300, 6, 10.0), (800, 11, 0.1), (800, 11, 1000.0)])
def test_linear_svm_matches_cvxpy(n, d, C):
    cp = pytest.importorskip("cvxpy", reason="the reference solver is absent")
    X, _, y = synthetic(n, d, seed=n + d)
    alpha, beta = cp.Variable(d - 1), cp.Variable()
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(alpha) + C * cp.sum(cp.pos(1 - cp.multiply(y, X @ alpha + beta))))
    )
    problem.solve(solver="CLARABEL")
    newton = models.fit_linear_svm(X, y, C)
    lbfgs = models.fit_linear_svm(X, y, C, method="lbfgs")
    for omega in (newton, lbfgs):
        assert abs(models.svm_objective(X, y, omega, C) - problem.value) <= 1e-3 * problem.value
    assert models.svm_objective(X, y, newton, C) <= problem.value + C * n * 0.001 / 4


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_linear_svm_agrees_with_liblinear_on_a_separable_block():
    svm = pytest.importorskip("sklearn.svm", reason="the reference solver is absent")
    X, _, y = synthetic(400, 21, seed=5, noise=0.0)
    C = 10.0
    omega = models.fit_linear_svm(X, y, C)
    reference = svm.LinearSVC(loss="hinge", C=C, intercept_scaling=100.0, tol=1e-10, max_iter=1_000_000).fit(X, y)
    liblinear = np.r_[reference.coef_[0], reference.intercept_]
    assert models.svm_objective(X, y, omega, C) <= models.svm_objective(X, y, liblinear, C) * (1 + 1e-3)
    assert np.mean(models.predict_linear(X, omega, "svm") == reference.predict(X)) >= 0.99


def test_svm_c_tuning_picks_the_grid_minimum():
    X, _, y = synthetic(600, 6, seed=3, noise=1.5)
    folds = [(np.r_[0:400], np.r_[400:600]), (np.r_[200:600], np.r_[0:200])]
    grid = (0.01, 1.0, 100.0)
    errors = models.svm_cross_validation_errors(X, y, folds, grid)
    assert errors.shape == (3,) and np.all((errors >= 0) & (errors <= 1))
    assert models.tune_svm_c(X, y, folds, grid) == grid[int(np.argmin(errors))]


def test_solvers_raise_instead_of_returning_partial_fits():
    X, y01, y = synthetic(500, 6, seed=7)
    with pytest.raises(models.ConvergenceError, match="Newton did not converge in 1"):
        models.fit_logistic_regression(X, y01, max_iter=1)
    for method in ("newton", "lbfgs"):
        with pytest.raises(models.ConvergenceError, match="smoothed-hinge SVM"):
            models.fit_linear_svm(X, y, 10.0, method=method, max_iter=1)
    for loss in erm.LOSSES:
        with pytest.raises(models.ConvergenceError, match="PrivateERM"):
            erm.fit_private_erm(X, y, 1.0, np.random.default_rng(0), loss=loss, max_iter=1)


def test_kmeans_recovers_blobs_and_variance_is_exact():
    rng = np.random.default_rng(11)
    truth = np.array([[-0.6, -0.6], [0.6, -0.4], [0.0, 0.7]])
    T = np.clip(truth[rng.integers(3, size=3000)] + 0.05 * rng.normal(size=(3000, 2)), -1, 1)
    centres = models.lloyd_kmeans(T, 3, np.random.default_rng(1), restarts=3)
    assert np.max(np.min(np.linalg.norm(centres[:, None] - truth[None], axis=2), axis=0)) < 0.01
    brute = np.mean(np.min(((T[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1))
    assert models.intra_cluster_variance(T, centres) == pytest.approx(brute, rel=1e-12)
    assert models.intra_cluster_variance(T, centres, max_cells=7) == pytest.approx(brute, rel=1e-12)
    again = models.lloyd_kmeans(T, 3, np.random.default_rng(1), restarts=3)
    np.testing.assert_array_equal(centres, again)
    seeds = T[rng.choice(len(T), size=3, replace=False)]
    assert models.intra_cluster_variance(T, centres) <= models.intra_cluster_variance(T, seeds)


# --------------------------------------------------------------------------- 12 Majority


def test_12_majority_at_huge_epsilon_returns_true_majority():
    rng = np.random.default_rng(0)
    assert models.majority_classifier(np.r_[np.ones(51), np.zeros(49)], 1e6, rng) == 1.0
    assert models.majority_classifier(np.r_[np.ones(49), np.zeros(51)], 1e6, rng) == 0.0
    assert models.majority_classifier(np.r_[np.ones(49), -np.ones(51)], 1e6, rng) == -1.0


def test_12_majority_output_law_is_the_laplace_threshold_and_epsilon_dp():
    eps, n = 0.5, 100
    law = lambda count: stats.laplace(loc=count, scale=1 / eps)  # noqa: E731
    counts = np.arange(n)
    for log_probability in (lambda c: law(c).logsf(n / 2), lambda c: law(c).logcdf(n / 2)):
        assert np.max(np.abs(log_probability(counts + 1) - log_probability(counts))) <= eps + 1e-12
    p_one = lambda count: law(count).sf(n / 2)  # noqa: E731
    y = np.r_[np.ones(48), np.zeros(52)]
    rng = np.random.default_rng(3)
    draws = np.array([models.majority_classifier(y, eps, rng) for _ in range(20_000)])
    assert stats.binomtest(int(draws.sum()), draws.size, p_one(48)).pvalue > 1e-3
