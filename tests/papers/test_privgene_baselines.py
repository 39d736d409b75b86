"""PrivGene reference fits and baselines (spec §3, acceptance checks 8–12).

Synthetic, seeded data only. Oracles: cvxpy (CLARABEL) and scikit-learn for the
non-private fits, diffprivlib's ``Vector`` mechanism for PrivateERM's noise.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpreplication.learning import functional_mechanism as fm
from dpreplication.learning import models
from dpreplication.learning import objective_perturbation as erm
from dpreplication.learning import output_perturbation as psvm
from dpreplication.learning import sample_and_aggregate as gupt


def synthetic(n, d, seed, signal=1.0, noise=0.5):
    """Features uniform on [-1,1]^{d-1}, labels from a noisy linear rule: (X, y01, y_pm)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, d - 1))
    z = signal * (X @ rng.normal(size=d - 1)) + 0.3 + noise * rng.normal(size=n)
    y01 = (z > 0).astype(float)
    return X, y01, 2.0 * y01 - 1.0


def ks_laplace(samples, scale):
    return stats.kstest(samples, stats.laplace(scale=scale).cdf).pvalue


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


# --------------------------------------------------------------------------- 8 Functional Mechanism


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


# --------------------------------------------------------------------------- 9 PrivateERM


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


# --------------------------------------------------------------------------- 10 PrivateSVM


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


# --------------------------------------------------------------------------- 11 GUPT


def test_11_block_counts_and_partition():
    sizes = {39_074: 68, 36_169: 66, 32_000: 63, 30_400: 62, 26_733: 58, 34_112: 65}
    assert {n: gupt.gupt_block_count(n) for n in sizes} == sizes
    blocks = gupt.gupt_partition(1003, np.random.default_rng(0))
    assert len(blocks) == gupt.gupt_block_count(1003) == 15
    assert np.array_equal(np.sort(np.concatenate(blocks)), np.arange(1003))
    assert {b.size for b in blocks} <= {1003 // 15, -(-1003 // 15)}


def test_11_aggregate_at_infinite_epsilon_is_the_mean_of_clamped_blocks():
    outputs = np.array([[7.0, -1.0], [1.0, -9.0], [-2.0, 2.0]])
    np.testing.assert_allclose(
        gupt.gupt_aggregate(outputs, (-5.0, 5.0), np.inf, np.random.default_rng(0)), [4 / 3, -4 / 3]
    )


def test_11_aggregate_noise_scale_and_sensitivity():
    rng = np.random.default_rng(51)
    outputs = rng.uniform(-6, 6, (20, 3))
    clamped_mean = np.clip(outputs, -5, 5).mean(axis=0)
    for fraction in (1.0, 1 / 3):
        scale = gupt.gupt_noise_scale(3, (-5.0, 5.0), 20, 0.5, fraction)
        assert scale == 3 * 10 / (20 * 0.5 * fraction)
        noise = (
            np.array([gupt.gupt_aggregate(outputs, (-5.0, 5.0), 0.5, rng, fraction) for _ in range(5000)])
            - clamped_mean
        )
        assert ks_laplace(noise.ravel(), scale) > 1e-3
        assert ks_laplace(noise.ravel(), 1.1 * scale) < 1e-6
    assert gupt.gupt_noise_scale(30, gupt.CENTRE_RANGE, 58, 1.0) == pytest.approx(1.03, abs=0.01)
    for row in range(20):
        replaced = outputs.copy()
        replaced[row] = rng.uniform(-100, 100, 3)
        moved = np.abs(gupt.gupt_aggregate(replaced, (-5.0, 5.0), np.inf, rng) - clamped_mean).sum()
        assert moved <= 3 * 10 / 20 + 1e-12


@pytest.mark.parametrize(
    "epsilon, fraction, message",
    [
        (math.nan, 1.0, r"epsilon must be positive \(inf allowed\), got nan"),
        (0.0, 1.0, r"epsilon must be positive \(inf allowed\), got 0.0"),
        (1.0, 2.0, r"eps_fraction must lie in \(0, 1\], got 2.0"),
        (1.0, math.nan, r"eps_fraction must lie in \(0, 1\], got nan"),
    ],
)
def test_11_aggregate_refuses_a_budget_or_share_out_of_range(epsilon, fraction, message):
    """Before, a share φ = 2 spent 2ε (half the noise), and a NaN ε gave a NaN noise scale."""
    outputs = np.zeros((20, 3))
    with pytest.raises(ValueError, match=message):
        gupt.gupt_noise_scale(3, (-5.0, 5.0), 20, epsilon, fraction)
    with pytest.raises(ValueError, match=message):
        gupt.gupt_aggregate(outputs, (-5.0, 5.0), epsilon, np.random.default_rng(0), fraction)


def test_11_block_fits_linear_and_kmeans():
    X, y01, y = synthetic(2000, 6, seed=61)
    blocks = gupt.gupt_partition(2000, np.random.default_rng(0))
    lr = gupt.logistic_block_outputs(X, y01, blocks)
    svm = gupt.svm_block_outputs(X, y, blocks)
    assert lr.shape == svm.shape == (len(blocks), 6)
    np.testing.assert_allclose(lr[0], models.fit_logistic_regression(X[blocks[0]], y01[blocks[0]], ridge=1e-6))
    rng = np.random.default_rng(2)
    T = np.clip(
        np.array([[-0.5, 0.5], [0.5, -0.5]])[rng.integers(2, size=2000)] + 0.05 * rng.normal(size=(2000, 2)), -1, 1
    )
    centres = gupt.kmeans_block_outputs(T, blocks, 2, np.random.default_rng(3), restarts=2)
    assert centres.shape == (len(blocks), 4)
    assert np.all(centres[:, 0] <= centres[:, 2])
    estimate = gupt.gupt_aggregate(centres, gupt.CENTRE_RANGE, np.inf, rng).reshape(2, 2)
    np.testing.assert_allclose(estimate, [[-0.5, 0.5], [0.5, -0.5]], atol=0.02)
    np.testing.assert_array_equal(
        gupt.sort_centres(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 1.0]])), [[0.0, 1.0], [0.0, 2.0], [1.0, 0.0]]
    )
