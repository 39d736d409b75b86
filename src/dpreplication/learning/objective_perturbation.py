"""PrivateERM: objective perturbation (Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Algorithm 2), spec §3.4.

Features are ``x̃ = [x, 1]/√d`` so that ``‖x̃‖₂ ≤ 1`` from the public bound
``x ∈ [-1,1]^{d-1}``; labels ``y ∈ {-1, +1}``. For a convex loss ``ℓ`` of the
margin with ``0 ≤ ℓ'' ≤ c`` and the regulariser ``(Λ/2)‖f‖²``:

    ε' = ε - log(1 + 2c/(nΛ) + c²/(n²Λ²))
    if ε' > 0: Δ = 0   else: Δ = c/(n(e^{ε/4} - 1)) - Λ,  ε' = ε/2
    b with density ∝ exp(-ε'‖b‖/2): ‖b‖ ~ Gamma(d, 2/ε'), direction uniform
    f = argmin (1/n)Σ ℓ(y fᵀx̃) + ((Λ + Δ)/2)‖f‖² + (1/n)bᵀf

Guarantee (CMS 2011, Theorem 9): ε-DP under replace-one neighbours, provided
the minimiser is exact; a solve that does not converge raises
:class:`~dpreplication.learning.models.ConvergenceError` and releases nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpreplication.accounting.ledger import record_objective_perturbation
from dpreplication.docstrings import shared_parameters
from dpreplication.learning.design import BinaryDesign
from dpreplication.learning.models import (
    LEARNING_PARAMETERS,
    PRIVATE_SVM_C,
    check_labels,
    huber_hinge,
    lbfgs_minimise,
    with_bias,
)
from dpreplication.numerics import softplus_and_sigmoid
from dpreplication.validation import positive

LOSSES = ("logistic", "huber")
LOGISTIC_REGULARISER = 1e-12
HUBER_H = 0.5


def loss_curvature(loss: str, huber_h: float = HUBER_H) -> float:
    """``c = sup ℓ''``: ¼ for the logistic loss, ``1/(2h)`` for the Huber hinge."""
    if loss == "logistic":
        return 0.25
    if loss == "huber":
        return 1.0 / (2.0 * huber_h)
    raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")


@dataclass(frozen=True)
class ErmCalibration:
    """The ``ε'`` that sets the noise norm and the extra ridge ``Δ`` of Algorithm 2."""

    epsilon_prime: float
    extra_regulariser: float


def erm_calibration(epsilon: float, n: int, regulariser: float, curvature: float) -> ErmCalibration:
    """Return the ``(ε', Δ)`` branch of CMS 2011 Algorithm 2 (module docstring); ``Λ = regulariser``.

    ``ValueError`` unless ε, ``n``, Λ and the curvature ``c`` are positive and finite.
    """
    positive("epsilon", epsilon)
    positive("n", n)
    positive("regulariser", regulariser)
    positive("curvature", curvature)
    ratio = curvature / (n * regulariser)
    epsilon_prime = epsilon - 2.0 * np.log1p(ratio)
    if epsilon_prime > 0:
        return ErmCalibration(float(epsilon_prime), 0.0)
    extra = curvature / (n * np.expm1(epsilon / 4.0)) - regulariser
    return ErmCalibration(epsilon / 2.0, float(max(extra, 0.0)))


def erm_noise_scale(epsilon_prime: float) -> float:
    """``θ = 2/ε'``: the noise ``b`` has density ``∝ exp(-‖b‖/θ)`` (CMS 2011, Algorithm 2).

    ``ValueError`` unless ``ε'`` is positive and finite.
    """
    positive("epsilon_prime", epsilon_prime)
    return 2.0 / epsilon_prime


def sample_erm_noise(dimension: int, epsilon_prime: float, rng: np.random.Generator) -> np.ndarray:
    """``b`` with density ``∝ exp(-ε'‖b‖/2)``: norm ``~ Gamma(d, θ)`` (:func:`erm_noise_scale`), direction uniform on the sphere.

    ``ValueError`` unless ``ε'`` is positive and finite.
    """
    scale = erm_noise_scale(epsilon_prime)
    direction = rng.standard_normal(dimension)
    direction /= np.linalg.norm(direction)
    return rng.gamma(dimension, scale) * direction


def _margin_loss(loss: str, huber_h: float):
    if loss == "logistic":
        return _logistic_margin_loss
    return lambda m: huber_hinge(m, huber_h)


def _logistic_margin_loss(margins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ℓ(m) = log(1 + e^{-m})`` and ``ℓ'(m) = -σ(-m)``."""
    value, sigmoid = softplus_and_sigmoid(-margins)
    return value, -sigmoid


def erm_design(X: np.ndarray, y_pm: np.ndarray) -> BinaryDesign:
    """Hold the rows ``y·[x, 1]`` of the objective (before the ``1/√d`` of ``x̃``), sparse where they can be.

    Build it once to share it across releases on the same data (:func:`fit_private_erm`'s ``design``).
    """
    return BinaryDesign.of(with_bias(X), check_labels(y_pm, "svm"))


def perturbed_erm_minimiser(
    design: BinaryDesign,
    loss: str,
    ridge: float,
    noise: np.ndarray,
    huber_h: float = HUBER_H,
    gtol: float = 1e-8,
    max_iter: int = 20_000,
) -> np.ndarray:
    """``argmin (1/n)Σ ℓ(y fᵀx̃) + (ridge/2)‖f‖² + (1/n)bᵀf`` by L-BFGS (gtol on max |∇|); raises if not converged.

    ``design`` holds the rows ``y·[x, 1]`` (:func:`erm_design`); ``x̃ = [x, 1]/√d``.
    """
    n, d = design.shape
    scale = 1.0 / np.sqrt(d)
    margin_loss = _margin_loss(loss, huber_h)

    def objective(f):
        value, slope = margin_loss(scale * design.dot(f))
        gradient = (scale / n) * design.transpose_dot(slope) + ridge * f + noise / n
        return value.sum() / n + 0.5 * ridge * f @ f + noise @ f / n, gradient

    return lbfgs_minimise(objective, np.zeros(d), gtol, max_iter, f"PrivateERM ({loss})")


@shared_parameters(LEARNING_PARAMETERS)
def fit_private_erm(
    X: np.ndarray,
    y_pm: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    loss: str = "logistic",
    regulariser: float | None = None,
    huber_h: float = HUBER_H,
    gtol: float = 1e-8,
    max_iter: int = 20_000,
    design: BinaryDesign | None = None,
) -> np.ndarray:
    """PrivateERM (CMS 2011 Alg. 2) for LR (``loss="logistic"``) or the Huber SVM (``loss="huber"``).

    Guarantee: ε-DP under replace-one neighbours (CMS 2011, Theorem 9: ``‖x̃‖ ≤ 1``,
    ``|y| = 1``, convex ``ℓ`` with ``0 ≤ ℓ'' ≤ c``), for the exact minimiser. ``|y| = 1`` is
    checked; ``‖x̃‖ ≤ 1`` holds only if every row of ``X`` lies in ``[-1, 1]^{d-1}`` (not
    checked). The L-BFGS solution is accepted at ``max |∇| ≤ 10·gtol``
    (:func:`~dpreplication.learning.models.lbfgs_minimise`), not exactly the minimiser; the function
    raises rather than release an unconverged fit.

    Parameters
    ----------
    {X, y_pm}
    epsilon : float, ε > 0 and finite
        Privacy budget (``ValueError`` otherwise).
    rng : numpy.random.Generator
        Source of the noise vector ``b``.
    loss : {"logistic", "huber"}
        LR or the Huber-smoothed hinge (SVM).
    regulariser : float or None, Λ > 0
        Λ; ``None``: 1e-12 for LR (paper) and ``1/(C·n)`` with ``C = 10`` for the Huber SVM
        (spec §3.4 [inferred]).
    huber_h : float, h > 0
        Huber smoothing; sets ``c = 1/(2h)``.
    gtol : float, > 0
        L-BFGS tolerance on ``max |∇|`` (accepted at ``10·gtol``).
    max_iter : int, ≥ 1
        L-BFGS iteration limit.
    design : BinaryDesign, optional
        ``erm_design(X, y_pm)``, built once where many releases share the data (else built here).

    Returns
    -------
    numpy.ndarray, shape (d,)
        ``ω = f/√d`` (bias last) so that ``ωᵀ[x, 1] = fᵀx̃``.

    Raises
    ------
    ConvergenceError
        If the minimiser does not converge (nothing is released).
    ValueError
        If ``loss`` is unknown or the labels are not ±1.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.learning import fit_private_erm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (2000, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> omega = fit_private_erm(X, y, epsilon=1.0, rng=rng)  # weights, then the bias
    >>> omega.shape, float(np.mean(np.sign(X @ omega[:3] + omega[3]) == y)) > 0.8
    ((4,), True)
    """
    if design is None:
        design = erm_design(X, y_pm)
    n, d = design.shape
    if regulariser is None:
        regulariser = LOGISTIC_REGULARISER if loss == "logistic" else 1.0 / (PRIVATE_SVM_C * n)
    curvature = loss_curvature(loss, huber_h)
    calibration = erm_calibration(epsilon, n, regulariser, curvature)
    ridge = regulariser + calibration.extra_regulariser
    record_objective_perturbation(
        "objective_perturbation", erm_noise_scale(calibration.epsilon_prime), curvature, n, ridge
    )
    noise = sample_erm_noise(d, calibration.epsilon_prime, rng)
    f = perturbed_erm_minimiser(design, loss, ridge, noise, huber_h, gtol, max_iter)
    return f / np.sqrt(d)
