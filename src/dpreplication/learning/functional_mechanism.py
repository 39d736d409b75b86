"""Functional Mechanism for logistic regression (Zhang et al., PVLDB 2012), PrivGene spec §3.3.

The LR loss ``log(1+e^z) - y·z`` is replaced by its 2nd-order Taylor expansion
at ``z = 0``, ``log 2 + (½ - y)·z + z²/8``, so the objective over ``X̃ = [X, 1]``
is ``ωᵀMω + bᵀω`` (plus a constant) with

    M = (1/8)·X̃ᵀX̃,    b = X̃ᵀ(½ - y).

Every coefficient of this polynomial receives Laplace noise of scale ``Δ/ε``
with ``Δ = d²/4 + 3d``; the rest (symmetrising, the ``5·√2·Δ/ε`` ridge of the
authors' ``Functional_Logistic.m``, spectral trimming and the closed-form
minimiser) is post-processing.
"""

from __future__ import annotations

import numpy as np

from dpreplication.docstrings import shared_parameters
from dpreplication.learning.models import LEARNING_PARAMETERS, check_labels, with_bias
from dpreplication.mechanisms.additive import laplace_mechanism, laplace_scale

REGULARISATION_FACTOR = 5.0
EIGENVALUE_FLOOR = 1e-8


def functional_mechanism_sensitivity(d: int) -> float:
    """``Δ = d²/4 + 3d`` (spec §3.3): the L1 sensitivity of the coefficients ``(M, b)``.

    One tuple with ``x̃ ∈ [-1,1]^d``, ``y ∈ {0,1}`` contributes coefficients of
    L1 norm at most ``Σ_j ½|x_j| + Σ_j |y x_j| + (1/8)Σ_{j,l} |x_j x_l| ≤ d/2 + d + d²/8``;
    replacing it changes the vector by at most twice that.
    """
    return d * d / 4.0 + 3.0 * d


def taylor_coefficients(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``M = (1/8)X̃ᵀX̃`` and ``b = X̃ᵀ(½ - y)`` of the Taylor-approximated LR objective ``ωᵀMω + bᵀω``."""
    features = with_bias(X)
    return features.T @ features / 8.0, features.T @ (0.5 - check_labels(y, "lr"))


@shared_parameters(LEARNING_PARAMETERS)
def perturb_coefficients(
    quadratic: np.ndarray, linear: np.ndarray, epsilon: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``M̃ = sym(M + Lap(Δ/ε)^{d×d})`` and ``b̃ = b + Lap(Δ/ε)^d`` with ``Δ = d²/4 + 3d``.

    Guarantee: ε-DP under replace-one neighbours (Laplace mechanism on the ``d² + d`` coefficients,
    L1 sensitivity ``Δ``; paper Algorithm 1) when ``(M, b)`` come from :func:`taylor_coefficients` of
    rows with ``x̃ ∈ [-1, 1]^d`` and ``y ∈ {0, 1}``; symmetrising ``(M̃ + M̃ᵀ)/2`` is post-processing.

    Parameters
    ----------
    quadratic : numpy.ndarray, shape (d, d)
        ``M``.
    linear : numpy.ndarray, shape (d,)
        ``b``.
    {epsilon, rng}

    Returns
    -------
    tuple of numpy.ndarray
        ``(M̃, b̃)``.
    """
    d = linear.size
    sensitivity = functional_mechanism_sensitivity(d)
    noisy = laplace_mechanism(np.concatenate([quadratic.ravel(), linear]), epsilon, rng, sensitivity)
    noisy_quadratic, noisy_linear = noisy[: d * d].reshape(d, d), noisy[d * d :]
    return 0.5 * (noisy_quadratic + noisy_quadratic.T), noisy_linear


def quadratic_minimiser(
    quadratic: np.ndarray, linear: np.ndarray, eigenvalue_floor: float = EIGENVALUE_FLOOR
) -> np.ndarray:
    """Minimiser of ``ωᵀMω + bᵀω`` on the span of the eigenvectors of ``M`` with ``λ > floor``.

    ``M = VΛVᵀ`` → ``ω = V_k(-½ Λ_k⁻¹ V_kᵀ b)`` (spec §3.3 spectral trimming); for a
    positive-definite ``M`` this is ``-½ M⁻¹ b``.
    """
    eigenvalues, eigenvectors = np.linalg.eigh(quadratic)
    keep = eigenvalues > eigenvalue_floor
    basis = eigenvectors[:, keep]
    return basis @ (-0.5 * (basis.T @ linear) / eigenvalues[keep])


@shared_parameters(LEARNING_PARAMETERS)
def fit_functional_mechanism(
    X: np.ndarray,
    y: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    regularisation_factor: float = REGULARISATION_FACTOR,
    eigenvalue_floor: float = EIGENVALUE_FLOOR,
) -> np.ndarray:
    """FM logistic regression (Zhang et al., PVLDB 2012, Algorithm 1 on the Taylor-approximated loss; spec §3.3).

    Adds ``regularisation_factor·√2·Δ/ε`` to the diagonal of ``M̃`` before trimming.
    Guarantee: ε-DP under replace-one neighbours (:func:`perturb_coefficients`, sensitivity
    ``Δ = d²/4 + 3d``) provided every row of ``X`` lies in ``[-1, 1]^{d-1}`` (not checked; the
    labels are); ``n`` is public. Everything after the noise is post-processing (the ridge depends
    only on ``ε`` and ``d``).

    Parameters
    ----------
    {X}
    y : numpy.ndarray, shape (n,), entries in {0, 1}
        Labels.
    {epsilon, rng}
    regularisation_factor : float, ≥ 0
        Ridge in Laplace standard deviations (5, the authors' constant).
    eigenvalue_floor : float, ≥ 0
        Eigenvalues of the ridged ``M̃`` at or below it are trimmed (:func:`quadratic_minimiser`).

    Returns
    -------
    numpy.ndarray, shape (d,)
        ``ω`` with the bias last.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.learning import fit_functional_mechanism
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (20000, 3)) / np.sqrt(3)
    >>> y = (X[:, 0] > 0).astype(float)
    >>> omega = fit_functional_mechanism(X, y, epsilon=1.0, rng=rng)
    >>> omega.shape
    (4,)
    """
    quadratic, linear = perturb_coefficients(*taylor_coefficients(X, y), epsilon, rng)
    ridge = regularisation_factor * np.sqrt(2.0) * laplace_scale(epsilon, functional_mechanism_sensitivity(linear.size))
    quadratic[np.diag_indices_from(quadratic)] += ridge
    return quadratic_minimiser(quadratic, linear, eigenvalue_floor)
