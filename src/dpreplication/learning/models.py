"""Non-private reference fits and shared model utilities (PrivGene spec §1, §3.1, §3.2).

Conventions (spec §1): features ``x ∈ [-1, 1]^{d-1}`` are the rows of ``X``
*without* a bias column; a linear model is ``ω = (α, β) ∈ R^d`` with the bias
``β`` **last**, scoring ``z = xᵀα + β``. Logistic regression (task ``"lr"``)
uses labels ``y ∈ {0, 1}``; the SVM (task ``"svm"``) uses ``y ∈ {-1, +1}``.
Both predict the positive class iff ``z > 0``. k-means centres are rows of a
``(k, dim)`` array. Everything is float64 and vectorised; randomness comes only
from ``numpy.random.Generator`` arguments.

A solver that stops before its convergence test passes raises
:class:`ConvergenceError`; no function returns a partial fit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import optimize
from scipy.linalg import lapack

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.learning.design import BinaryDesign
from dpreplication.mechanisms.additive import laplace_mechanism
from dpreplication.numerics import row_chunks, softplus_and_sigmoid

LEARNING_PARAMETERS = parameter_entries(
    """
    X : numpy.ndarray, shape (n, d - 1), entries in [-1, 1]
        Features without a bias column.
    y_pm : numpy.ndarray, shape (n,), entries in {-1, +1}
        Labels.
    epsilon : float, ε > 0 and finite
        Privacy budget.
    rng : numpy.random.Generator
        Source of the Laplace noise.
    """
)
"""Numpydoc entries of the training data, budget and noise source that the private learners share."""

TASKS = ("lr", "svm")
SVM_SMOOTHING = (0.1, 0.01, 0.001)
SVM_C_GRID = (1e-2, 1e-1, 1.0, 10.0, 1e2, 1e3)
PRIVATE_SVM_C = 10.0  # C of PrivGene and every private SVM baseline (spec §2.6)


class ConvergenceError(RuntimeError):
    """A solver stopped before meeting its convergence criterion."""


# --------------------------------------------------------------------------- linear models


def with_bias(X: np.ndarray) -> np.ndarray:
    """``X̃ = [X, 1]``: the bias as a constant last feature (spec §3)."""
    X = np.asarray(X, dtype=float)
    return np.hstack([X, np.ones((X.shape[0], 1))])


def unit_norm_features(X: np.ndarray) -> np.ndarray:
    """``x̃ = [x, 1]/√d``: ``‖x̃‖₂ ≤ 1`` from the public domain ``[-1,1]^{d-1}`` alone (spec §3.4, §3.5).

    A model ``f`` fitted on ``x̃`` is ``ω = f/√d`` on ``[x, 1]``.
    """
    features = with_bias(X)
    return features / np.sqrt(features.shape[1])


def linear_scores(X: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``z = Xα + β`` for one ``ω`` of shape ``(d,)`` or a stack ``(m, d)`` (result ``(n,)`` or ``(n, m)``)."""
    omega = np.asarray(omega, dtype=float)
    return np.asarray(X, dtype=float) @ omega[..., :-1].T + omega[..., -1]


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")


def check_labels(y: np.ndarray, task: str) -> np.ndarray:
    """``y`` as float64, after checking it uses the task's labels: {0, 1} for ``"lr"``, {-1, +1} for ``"svm"``."""
    _check_task(task)
    y = np.asarray(y, dtype=float)
    allowed = (0.0, 1.0) if task == "lr" else (-1.0, 1.0)
    if not np.all(np.isin(y, allowed)):
        raise ValueError(f"task {task!r} needs labels in {allowed}, got values {np.unique(y)[:5]}")
    return y


def predict_linear(X: np.ndarray, omega: np.ndarray, task: str) -> np.ndarray:
    """Labels in the task's convention: positive (1) iff ``z > 0``, else 0 (``"lr"``) or -1 (``"svm"``)."""
    _check_task(task)
    negative = 0.0 if task == "lr" else -1.0
    return np.where(linear_scores(X, omega) > 0, 1.0, negative)


def misclassification_rate(X: np.ndarray, y: np.ndarray, omega: np.ndarray, task: str):
    """Fraction of rows with ``predict_linear(X, ω) ≠ y``; one value per ``ω`` when ``ω`` is a stack."""
    predictions = predict_linear(X, omega, task)
    y = np.asarray(y, dtype=float)
    wrong = predictions != (y if predictions.ndim == 1 else y[:, None])
    return wrong.mean(axis=0)[()]


def fit_logistic_regression(
    X: np.ndarray, y: np.ndarray, ridge: float = 1e-8, max_iter: int = 100, tol: float = 1e-10
) -> np.ndarray:
    """Maximum-likelihood LR by damped Newton (IRLS), spec §3.1.

    Minimises ``Σ_t [softplus(z_t) - y_t z_t] + (ridge/2)‖ω‖²`` with ``y ∈ {0,1}``;
    the tiny ridge (all coordinates) keeps the Hessian ``X̃ᵀWX̃ + ridge·I``
    invertible when columns are collinear (one-hot blocks) or the data are
    separable. Stops when the Newton decrement ``gᵀH⁻¹g/2 ≤ tol·max(1, |f|)``;
    backtracking (Armijo) keeps every step a descent step, and a full step that is
    accepted is doubled while that lowers ``f`` further: on separable data (GUPT's small
    blocks) the weights grow by about one Newton step per iteration, and doubling cut an
    Adult block's iterations from 18.5 to 12 on average. Returns ``ω`` (bias last).

    Columns constant on the data are multiples ``a_j𝟙`` of one column: the loss sees only
    ``t = Σ a_j ω_j``, and under the isotropic ridge Newton's iterates from 0 keep
    ``ω_j = a_j t/‖a‖²`` (their gradients stay proportional), so they are solved as the one column
    ``‖a‖𝟙`` and spread back: the same iterates on fewer columns (about 20 of 124 on an Adult
    GUPT block). The products with ``X̃`` use its sparse form
    (:class:`~dpreplication.learning.design.BinaryDesign`).
    """
    features = with_bias(X)
    y = check_labels(y, "lr")
    constant = np.all(features == features[:1], axis=0)
    multiples = features[0, constant]
    norm = float(np.sqrt(multiples @ multiples))  # ≥ 1: the bias column is constant
    reduced = _newton_logistic(np.hstack([features[:, ~constant], np.full((len(y), 1), norm)]), y, ridge, max_iter, tol)
    omega = np.empty(features.shape[1])
    omega[~constant] = reduced[:-1]
    omega[constant] = multiples * (reduced[-1] / norm)
    return omega


def cholesky_solve(matrix: np.ndarray, vector: np.ndarray, label: str) -> np.ndarray:
    """Solve ``matrix·x = vector`` by Cholesky, reading only ``matrix``'s upper triangle (LAPACK ``dposv``).

    Raises :class:`ConvergenceError` naming ``label`` if ``matrix`` is not positive definite.
    """
    _, solution, info = lapack.dposv(matrix, vector, lower=0)
    if info:
        raise ConvergenceError(f"{label} not positive definite (LAPACK info {info})")
    return solution


def _newton_logistic(features: np.ndarray, y: np.ndarray, ridge: float, max_iter: int, tol: float) -> np.ndarray:
    """Damped Newton with step doubling on ``Σ_t [softplus(z_t) - y_t z_t] + (ridge/2)‖ω‖²``, ``z = features·ω``."""
    design = BinaryDesign.of(features)

    def evaluate(w):
        z = design.dot(w)
        loss, p = softplus_and_sigmoid(z)
        return float(np.sum(loss - y * z) + 0.5 * ridge * w @ w), p

    omega = np.zeros(design.shape[1])
    value, p = evaluate(omega)
    for _ in range(max_iter):
        gradient = design.transpose_dot(p - y) + ridge * omega
        hessian = design.weighted_gram_upper(p * (1.0 - p))
        hessian[np.diag_indices_from(hessian)] += ridge
        step = cholesky_solve(hessian, gradient, "logistic regression: Hessian")
        decrement = float(gradient @ step)
        if decrement / 2 <= tol * max(1.0, abs(value)):
            return omega
        size = 1.0
        while size >= 1e-10:
            candidate = omega - size * step
            candidate_value, candidate_p = evaluate(candidate)
            if candidate_value <= value - 0.25 * size * decrement:
                break
            size /= 2
        else:
            raise ConvergenceError(f"logistic regression: line search failed (Newton decrement {decrement:.3g})")
        while size >= 1.0:
            size *= 2
            further = omega - size * step
            further_value, further_p = evaluate(further)
            if not further_value < candidate_value:
                break
            candidate, candidate_value, candidate_p = further, further_value, further_p
        omega, value, p = candidate, candidate_value, candidate_p
    raise ConvergenceError(f"logistic regression: Newton did not converge in {max_iter} iterations")


def lbfgs_minimise(objective, start: np.ndarray, gtol: float, max_iter: int, label: str) -> np.ndarray:
    """L-BFGS-B on a smooth ``objective(x) -> (value, gradient)``; raises unless ``max|∇| ≤ 10·gtol`` at the end.

    scipy's own ``success`` flag is not used: it is also set when a step makes
    no progress, which says nothing about the gradient. The factor 10 accepts
    a run whose last line search stalled in rounding just short of ``gtol``.
    """
    result = optimize.minimize(
        objective,
        np.asarray(start, dtype=float),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "maxcor": 20, "maxls": 100, "ftol": 0.0, "gtol": gtol},
    )
    gradient_norm = float(np.max(np.abs(objective(result.x)[1])))
    if not gradient_norm <= 10.0 * gtol:
        raise ConvergenceError(
            f"{label}: L-BFGS stopped with max|gradient| {gradient_norm:.3g} > {10.0 * gtol:.3g} "
            f"after {result.nit} iterations ({result.message})"
        )
    return result.x


def huber_hinge(margin: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Huber-smoothed hinge of CMS 2011 (spec §3.4) and its derivative in the margin ``m = y·z``.

    ``ℓ_h(m) = 0`` for ``m > 1+h``; ``(1+h-m)²/(4h)`` for ``|1-m| ≤ h``;
    ``1-m`` for ``m < 1-h``. Convex, 1-Lipschitz, ``ℓ'' ≤ 1/(2h)``, and
    ``0 ≤ ℓ_h - hinge ≤ h/4``.
    """
    inner = np.clip(1.0 + h - margin, 0.0, 2.0 * h)
    value = inner * inner / (4.0 * h) + np.maximum(1.0 - h - margin, 0.0)
    return value, -inner / (2.0 * h)


def _smoothed_hinge_objective(signed: BinaryDesign, loss_weight: float, mask: np.ndarray, h: float):
    """Return ``v ↦ (value, gradient, margins)`` and the scale ``1/(loss_weight·n)``.

    The objective is ``(½‖v_P‖² + loss_weight·Σ ℓ_h(m))/(loss_weight·n)``, ``m = signed·v`` (rows ``y·f``).
    """
    scale = 1.0 / (loss_weight * signed.shape[0])

    def evaluate(v):
        margins = signed.dot(v)
        loss, slope = huber_hinge(margins, h)
        penalty = mask * v
        value = 0.5 * penalty @ v + loss_weight * loss.sum()
        return scale * value, scale * (penalty + loss_weight * signed.transpose_dot(slope)), margins

    return evaluate, scale


def _ray_minimiser(signed, loss_weight, mask, h, w, margins, direction) -> float:
    """Exact ``argmin_{t>0} f(w + t·p)`` for the convex, piecewise-quadratic smoothed-hinge objective.

    ``φ'(t) = (P∘(w + tp))ᵀp + loss_weight·Σ_t ℓ_h'(m_t + t q_t) q_t`` with ``q = signed @ p`` is
    continuous, non-decreasing and piecewise linear: a row's term is constant outside the window
    ``|1 - m| < h`` and has slope ``loss_weight·q_t²/(2h)`` inside it. Walking the times at which rows
    enter and leave the window in order gives ``φ'`` at each of them; the root lies on the first
    segment where ``φ'`` turns non-negative, where it is the root of that segment's line. The
    earliest times are ordered first (a partial sort), more only if the root lies beyond them.
    """
    along = signed.dot(direction)
    derivative = (mask * w) @ direction + loss_weight * (huber_hinge(margins, h)[1] @ along)
    if derivative >= 0:
        raise ConvergenceError("smoothed-hinge SVM: the Newton direction is not a descent direction (rounding)")
    m, q = margins[along != 0.0], along[along != 0.0]
    enter = np.where(q > 0, 1.0 - h - m, 1.0 + h - m) / q  # when the margin reaches the window's near edge
    leave = np.where(q > 0, 1.0 + h - m, 1.0 - h - m) / q  # and its far edge
    curvature = (loss_weight / (2.0 * h)) * q * q
    slope = (mask * direction) @ direction + curvature[(enter <= 0) & (leave > 0)].sum()
    times = np.concatenate([enter[enter > 0], leave[leave > 0]])
    changes = np.concatenate([curvature[enter > 0], -curvature[leave > 0]])
    knot, count = 0.0, 64
    while True:
        if count < len(times):
            earliest = np.argpartition(times, count)[:count]
            earliest = earliest[np.argsort(times[earliest], kind="stable")]
        else:
            earliest = np.argsort(times, kind="stable")
        knots = np.concatenate([[knot], times[earliest]])
        slopes = slope + np.concatenate([[0.0], np.cumsum(changes[earliest])])  # slopes[k]: on [knots[k], knots[k+1])
        values = derivative + np.concatenate([[0.0], np.cumsum(slopes[:-1] * np.diff(knots))])  # φ'(knots)
        crossed = values >= 0
        if crossed.any() or count >= len(times):
            break
        rest = np.setdiff1d(np.arange(len(times)), earliest, assume_unique=True)
        knot, slope, derivative = knots[-1], slopes[-1], values[-1]
        times, changes, count = times[rest], changes[rest], 4 * count
    k = int(np.argmax(crossed)) - 1 if crossed.any() else len(knots) - 1
    if slopes[k] <= 0:
        raise ConvergenceError("smoothed-hinge SVM: the objective is unbounded along a descent direction")
    return float(knots[k] - values[k] / slopes[k])


def _newton_smoothed_hinge(signed, loss_weight, mask, h, w, gtol, max_iter, label) -> np.ndarray:
    """Generalised Newton with exact line search on the piecewise-quadratic smoothed-hinge objective.

    The (generalised) Hessian is ``diag(P) + (loss_weight/(2h))·Σ_{|1-m_t|<h} s_t s_tᵀ``
    (only rows in the quadratic window contribute), plus a ``1e-10``-relative
    ridge that keeps it invertible when no row is in the window (the bias is
    then a flat direction of the model); the step length minimises the
    objective exactly along the Newton direction (Chapelle 2007, §4).
    """
    evaluate, scale = _smoothed_hinge_objective(signed, loss_weight, mask, h)
    _, gradient, margins = evaluate(w)
    for _ in range(max_iter):
        if np.max(np.abs(gradient)) <= gtol:
            return w
        window = signed.rows_where(np.abs(1.0 - margins) < h)
        hessian = np.diag(mask) + (loss_weight / (2.0 * h)) * (window.T @ window)
        hessian[np.diag_indices_from(hessian)] += 1e-10 * max(np.max(np.diag(hessian)), 1.0)
        direction = cholesky_solve(hessian, -gradient / scale, f"{label}: generalised Hessian")
        direction /= np.max(np.abs(direction))
        w = w + _ray_minimiser(signed, loss_weight, mask, h, w, margins, direction) * direction
        _, gradient, margins = evaluate(w)
    raise ConvergenceError(
        f"{label}: Newton stopped after {max_iter} iterations with max|gradient| {np.max(np.abs(gradient)):.3g} > {gtol:.3g}"
    )


def minimise_smoothed_hinge(
    features: np.ndarray,
    y_pm: np.ndarray,
    loss_weight: float,
    penalised: np.ndarray,
    smoothing: Sequence[float] = SVM_SMOOTHING,
    start: np.ndarray | None = None,
    method: str = "newton",
    gtol: float | None = None,
    max_iter: int | None = None,
) -> np.ndarray:
    """Minimise ``½‖w_P‖² + loss_weight·Σ_t ℓ_h(y_t wᵀf_t)`` with continuation in ``h`` (spec §3.1).

    ``P`` = coordinates flagged in ``penalised`` (the SVM leaves the bias out).
    Each stage ``h = 0.1 → 0.01 → 0.001`` is warm-started from the previous one.
    The objective is divided by ``loss_weight·n`` so that ``gtol`` (max
    |gradient|) is scale-free. ``method="newton"`` (default; gtol 1e-9) is a
    generalised Newton with exact line search — on near-separable data L-BFGS
    needs ~10³ iterations per stage; ``method="lbfgs"`` (gtol 1e-7, accepted at
    1e-6) is the spec's solver, kept as a cross-check. Raises :class:`ConvergenceError` if a stage does not converge.
    """
    mask = np.asarray(penalised, dtype=float)
    signed = BinaryDesign.of(features, check_labels(y_pm, "svm"))  # rows y·f, sparse where they can be
    w = np.zeros(features.shape[1]) if start is None else np.asarray(start, dtype=float).copy()
    for h in smoothing:
        label = f"smoothed-hinge SVM (h={h}, {method})"
        if method == "newton":
            w = _newton_smoothed_hinge(signed, loss_weight, mask, h, w, gtol or 1e-9, max_iter or 200, label)
        elif method == "lbfgs":
            evaluate, _ = _smoothed_hinge_objective(signed, loss_weight, mask, h)
            w = lbfgs_minimise(lambda v, f=evaluate: f(v)[:2], w, gtol or 1e-7, max_iter or 20_000, label)
        else:
            raise ValueError(f"method must be 'newton' or 'lbfgs', got {method!r}")
    return w


def fit_linear_svm(X: np.ndarray, y_pm: np.ndarray, C: float, **solver_options) -> np.ndarray:
    """Primal linear SVM ``½‖α‖² + C·Σ_t hinge(y_t z_t)``, bias unregularised (spec §3.1, Definition 2).

    Solved on the Huber-smoothed hinge with continuation (:func:`minimise_smoothed_hinge`);
    the final ``h = 0.001`` is within ``C·n·h/4`` of the hinge objective. Returns ``ω`` (bias last).
    """
    features = with_bias(X)
    penalised = np.ones(features.shape[1])
    penalised[-1] = 0.0
    return minimise_smoothed_hinge(features, y_pm, C, penalised, **solver_options)


def svm_objective(X: np.ndarray, y_pm: np.ndarray, omega: np.ndarray, C: float) -> float:
    """Exact hinge objective ``½‖α‖² + C·Σ max(0, 1 - y z)``."""
    margins = np.asarray(y_pm, dtype=float) * linear_scores(X, omega)
    return float(0.5 * omega[:-1] @ omega[:-1] + C * np.maximum(0.0, 1.0 - margins).sum())


def svm_cross_validation_errors(X, y_pm, folds, grid: Sequence[float] = SVM_C_GRID) -> np.ndarray:
    """Mean held-out misclassification of :func:`fit_linear_svm` per ``C`` in ``grid``.

    ``folds`` is a sequence of ``(train_index, test_index)`` pairs.
    """
    X = np.asarray(X, dtype=float)
    y_pm = np.asarray(y_pm, dtype=float)
    errors = np.zeros(len(grid))
    for train, test in folds:
        for i, c in enumerate(grid):
            omega = fit_linear_svm(X[train], y_pm[train], c)
            errors[i] += misclassification_rate(X[test], y_pm[test], omega, "svm")
    return errors / len(folds)


def tune_svm_c(X, y_pm, folds, grid: Sequence[float] = SVM_C_GRID) -> float:
    """Return the ``C`` of ``grid`` with the lowest mean CV misclassification (first one on ties), spec §3.1."""
    return float(grid[int(np.argmin(svm_cross_validation_errors(X, y_pm, folds, grid)))])


# --------------------------------------------------------------------------- Majority


@shared_parameters(LEARNING_PARAMETERS)
def majority_classifier(y_train: np.ndarray, epsilon: float, rng: np.random.Generator, negative_label=None) -> float:
    """Majority baseline (spec §3.2): the constant label, chosen from a noisy count of positives.

    ``c̃₁ = #{y = 1} + Lap(1/ε)``; returns 1 if ``c̃₁ > n/2`` else the negative
    label (-1 if ``y_train`` uses ±1 labels, else 0; or ``negative_label``).
    Guarantee: ε-DP under replace-one neighbours — the count has sensitivity 1
    and ``n`` is public; the comparison is post-processing (Laplace mechanism, Dwork & Roth Thm 3.6).

    Parameters
    ----------
    y_train : numpy.ndarray, shape (n,)
        Training labels, {0, 1} or {-1, +1}.
    {epsilon, rng}
    negative_label : float or None
        Label returned for the negative class; ``None``: inferred from ``y_train`` as above.

    Returns
    -------
    float
        The constant predicted label.
    """
    y_train = np.asarray(y_train, dtype=float)
    if negative_label is None:
        negative_label = -1.0 if np.any(y_train < 0) else 0.0
    noisy_count = laplace_mechanism(np.count_nonzero(y_train == 1), epsilon, rng, sensitivity=1.0)
    return 1.0 if noisy_count > y_train.size / 2 else float(negative_label)


# --------------------------------------------------------------------------- k-means


def squared_distances(T: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``‖t - c‖²`` for every row of ``T`` and ``centres``: ``‖t‖² - 2tᵀc + ‖c‖²`` clipped at 0."""
    cross = T @ centres.T
    return np.maximum((T * T).sum(axis=1)[:, None] - 2.0 * cross + (centres * centres).sum(axis=1), 0.0)


def _nearest(T: np.ndarray, centres: np.ndarray, max_cells: int) -> tuple[np.ndarray, np.ndarray]:
    labels = np.empty(T.shape[0], dtype=np.int64)
    distances = np.empty(T.shape[0])
    for start, stop in row_chunks(T.shape[0], centres.shape[0], max_cells):
        block = squared_distances(T[start:stop], centres)
        labels[start:stop] = block.argmin(axis=1)
        distances[start:stop] = block[np.arange(stop - start), labels[start:stop]]
    return labels, distances


def intra_cluster_variance(T: np.ndarray, centres: np.ndarray, max_cells: int = 1 << 22) -> float:
    """Average intra-cluster variance ``(1/|T|)·Σ_t min_c ‖t - c‖²`` (spec §1), in row chunks."""
    T = np.asarray(T, dtype=float)
    return float(_nearest(T, np.asarray(centres, dtype=float), max_cells)[1].mean())


def lloyd_kmeans(
    T: np.ndarray, k: int, rng: np.random.Generator, restarts: int = 10, max_iter: int = 300
) -> np.ndarray:
    """Non-private k-means (spec §3.1): Lloyd from k-means++ seeds, best of ``restarts`` by intra-cluster variance.

    scikit-learn's ``KMeans`` (Lloyd's algorithm, ``tol=0``: each restart iterates until the
    assignment stops changing or ``max_iter`` rounds), single-threaded so that a result does not
    depend on the machine, seeded by one draw from ``rng``. Returns centres ``(k, dim)``.
    """
    from sklearn.cluster import KMeans  # lazy: most jobs never cluster
    from threadpoolctl import threadpool_limits

    seed = int(rng.integers(np.iinfo(np.int32).max))
    model = KMeans(
        k, init="k-means++", n_init=restarts, max_iter=max_iter, tol=0.0, algorithm="lloyd", random_state=seed
    )
    with threadpool_limits(limits=1):
        model.fit(np.asarray(T, dtype=float))
    return model.cluster_centers_
