"""PrivateSVM: output perturbation of a linear SVM (Rubinstein, Bartlett, Huang & Taft, JPC 2012), spec §3.5.

Training on ``x̃ = [x, 1]/√d`` (``κ = max‖x̃‖₂ = 1``, bias as a feature):

    w = argmin (C/n)·Σ_t ℓ(y_t wᵀx̃_t) + ½‖w‖²,   ℓ 1-Lipschitz (L = 1)

Replacing one tuple moves ``w`` by at most ``‖w_D - w_D'‖₁ ≤ 4·L·C·κ·√d/n``
(Rubinstein et al., Lemma; the factor √d turns their L2 bound into L1), so
``w + Lap(λ)^d`` with ``λ = 4·L·C·κ·√d/(n·ε)`` is ε-DP. ℓ is the Huber-smoothed
hinge at the final continuation step ``h = 0.001``: still convex and
1-Lipschitz, so the bound holds for its exact minimiser (spec §3.5).
"""

from __future__ import annotations

import numpy as np

from dpreplication.docstrings import shared_parameters
from dpreplication.learning.models import (
    LEARNING_PARAMETERS,
    PRIVATE_SVM_C,
    minimise_smoothed_hinge,
    unit_norm_features,
)
from dpreplication.mechanisms.additive import laplace_mechanism, laplace_scale

LIPSCHITZ = 1.0
FEATURE_NORM = 1.0


def private_svm_sensitivity(
    n: int, d: int, C: float = PRIVATE_SVM_C, lipschitz: float = LIPSCHITZ, feature_norm: float = FEATURE_NORM
) -> float:
    """L1 sensitivity ``4·L·C·κ·√d/n`` of the regularised SVM weights (replace-one)."""
    return 4.0 * lipschitz * C * feature_norm * np.sqrt(d) / n


def private_svm_noise_scale(n: int, d: int, epsilon: float, C: float = PRIVATE_SVM_C) -> float:
    """Laplace scale ``λ = 4·L·C·κ·√d/(n·ε)`` (spec §3.5; Adult: ``λ·ε = 0.0114``)."""
    return float(laplace_scale(epsilon, private_svm_sensitivity(n, d, C)))


def fit_svm_weights(X: np.ndarray, y_pm: np.ndarray, C: float = PRIVATE_SVM_C, **solver_options) -> np.ndarray:
    """Non-private ``w = argmin (C/n)Σ ℓ_h(y wᵀx̃) + ½‖w‖²`` on ``x̃ = [x,1]/√d``, every coordinate penalised.

    Depends only on the training fold, so it can be solved once and privatised
    for many ``ε`` and repetitions (:func:`privatise_svm_weights`).
    """
    features = unit_norm_features(X)
    n, d = features.shape
    return minimise_smoothed_hinge(features, y_pm, C / n, np.ones(d), **solver_options)


@shared_parameters(LEARNING_PARAMETERS)
def privatise_svm_weights(
    weights: np.ndarray, n: int, epsilon: float, rng: np.random.Generator, C: float = PRIVATE_SVM_C
) -> np.ndarray:
    """Release ``w + Lap(λ)^d`` as ``ω = w̃/√d`` (bias last, so that ``ωᵀ[x,1] = w̃ᵀx̃``).

    Guarantee: ε-DP under replace-one neighbours (Laplace mechanism at the L1 sensitivity
    ``4·L·C·κ·√d/n`` of Rubinstein et al. 2012, spec §3.5) when ``weights`` is the exact minimiser of
    :func:`fit_svm_weights` on ``n`` tuples with the same ``C``, features in ``[-1, 1]^{d-1}``.

    Parameters
    ----------
    weights : numpy.ndarray, shape (d,)
        ``w`` from :func:`fit_svm_weights`.
    n : int, ≥ 1
        Number of training tuples (public).
    {epsilon, rng}
    C : float, C > 0
        The ``C`` of the fit.

    Returns
    -------
    numpy.ndarray, shape (d,)
        ``ω = w̃/√d``.
    """
    d = weights.size
    noisy = laplace_mechanism(weights, epsilon, rng, private_svm_sensitivity(n, d, C))
    return noisy / np.sqrt(d)


@shared_parameters(LEARNING_PARAMETERS)
def fit_private_svm(
    X: np.ndarray, y_pm: np.ndarray, epsilon: float, rng: np.random.Generator, C: float = PRIVATE_SVM_C
) -> np.ndarray:
    """PrivateSVM (spec §3.5): :func:`fit_svm_weights` then :func:`privatise_svm_weights`; ε-DP.

    Guarantee: ε-DP under replace-one neighbours by output perturbation (Rubinstein et al. 2012;
    module docstring), provided every row of ``X`` lies in ``[-1, 1]^{d-1}`` (so ``κ = 1``; not
    checked) and the solver's ``w`` is the exact minimiser (the Newton solver stops at
    ``max |∇| ≤ 1e-9`` on the normalised objective, and raises if it does not get there).

    Parameters
    ----------
    {X, y_pm, epsilon, rng}
    C : float, C > 0
        SVM loss weight (10 for every private SVM, spec §2.6).

    Returns
    -------
    numpy.ndarray, shape (d,)
        ``ω`` with the bias last.

    Raises
    ------
    ConvergenceError
        If the SVM solver does not converge (nothing is released).

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.learning import fit_private_svm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (2000, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> fit_private_svm(X, y, epsilon=1.0, rng=rng).shape
    (4,)
    """
    return privatise_svm_weights(fit_svm_weights(X, y_pm, C), np.asarray(X).shape[0], epsilon, rng, C)
