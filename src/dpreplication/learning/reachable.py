"""The set of models PrivGene's mutation schedule can reach, and the best non-private model in it.

With ``m' = 1`` (EEM) every child is its parent plus ``±s_i`` on one coordinate, clipped to
``[-B, B]^d`` (:func:`dpreplication.learning.genetic.offspring`), and the released vector is
chosen among the children of round ``r - 1``. From an initial vector ``ω₀`` the output therefore
lies in ``{ω : ‖ω - ω₀‖₁ ≤ ρ_r, ‖ω - ω₀‖₀ ≤ r - 1, ‖ω‖∞ ≤ B}`` with ``ρ_r = Σ_{i<r} s_i``
(clipping moves a coordinate towards ``ω₀ ∈ [-B, B]^d``, never away). For the multiplicative
schedule ``ρ_r = s₁(1 - decay^{r-1})/(1 - decay)``: ``10(1 - 0.95^{r-1})`` for ``s₁ = 0.5``.

*Convex relaxation.* Starting from a constant classifier of Ω± (``α₀ = 0``, ``β₀ ∈ [-B, B]``,
what the first selection picks in most runs), the union over ``β₀`` of these sets is contained in
``K_ρ = {(α, β) : ‖α‖₁ ≤ ρ, ‖(α, β)‖∞ ≤ B}``: the bias may move anywhere in the box, the weights
by ``ρ`` in ℓ1. Dropping the ℓ0 bound and the ``±s_i`` lattice makes ``K_ρ`` convex, a superset
of the reachable set, so ``min_{K_ρ}`` of PrivGene's loss is a lower bound on the loss any run
started from Ω± can release. Runs whose first selection takes a random initial vector are not
covered (they start elsewhere).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from dpreplication.learning.genetic import mutation_scales
from dpreplication.learning.models import ConvergenceError, huber_hinge, with_bias

SMOOTHING_H = 0.01
"""Huber smoothing of the SVM hinge in :func:`fit_in_reachable_set` (``0 ≤ ℓ_h − hinge ≤ h/4``)."""


def reach_radius(r: int, first: float, decay: float = 0.95, schedule: str = "multiplicative") -> float:
    """``ρ_r = Σ_{i=1}^{r-1} s_i``: the ℓ1 distance ``r`` selections can move a vector (0 for ``r = 1``)."""
    return float(mutation_scales(first, r - 1, decay, schedule).sum()) if r > 1 else 0.0


def _loss(task: str, signed_or_labels: np.ndarray, features: np.ndarray, C: float, h: float):
    """Return ``w ↦ (value, gradient)`` of PrivGene's negative fitness per row (spec §2.7).

    LR ``Σ softplus(z) - y·z``; SVM ``½‖α‖² + C·Σ ℓ_h(y·z)`` (Huber-smoothed hinge).
    """
    n = features.shape[0]

    if task == "lr":

        def evaluate(w):
            z = features @ w
            value = np.logaddexp(0.0, z) - signed_or_labels * z
            return value.sum() / n, features.T @ (0.5 * (1.0 + np.tanh(0.5 * z)) - signed_or_labels) / n

        return evaluate

    def evaluate(w):
        margins = signed_or_labels * (features @ w)
        loss, slope = huber_hinge(margins, h)
        gradient = C * (features.T @ (slope * signed_or_labels))
        gradient[:-1] += w[:-1]
        return (0.5 * w[:-1] @ w[:-1] + C * loss.sum()) / n, gradient / n

    return evaluate


def fit_in_reachable_set(
    features: np.ndarray,
    labels: np.ndarray,
    task: str,
    radius: float | None,
    bound: float = 5.0,
    C: float = 10.0,
    h: float = SMOOTHING_H,
    max_iter: int = 2000,
) -> np.ndarray:
    """``argmin`` of PrivGene's loss over ``K_ρ = {‖α‖₁ ≤ radius, ‖ω‖∞ ≤ bound}`` (module docstring).

    The loss is LR's, or the SVM's of Definition 2 with a Huber-smoothed hinge; ``radius=None``:
    the box only. ``labels``: 0/1 for LR, ±1 for the SVM. Solved by SLSQP on ``α = α⁺ − α⁻`` (``α± ∈ [0, B]``,
    ``Σ(α⁺ + α⁻) ≤ ρ``), which represents ``K_ρ`` exactly. Returns ``ω = (α, β)``, bias last.
    """
    X = with_bias(features)
    p = X.shape[1] - 1
    evaluate = _loss(task, np.asarray(labels, dtype=float), X, C, h)

    def split(u):
        return np.concatenate([u[:p] - u[p : 2 * p], u[2 * p :]])

    def objective(u):
        value, gradient = evaluate(split(u))
        return value, np.concatenate([gradient[:p], -gradient[:p], gradient[p:]])

    constraints = []
    if radius is not None:
        ones = np.concatenate([np.ones(2 * p), [0.0]])
        constraints.append({"type": "ineq", "fun": lambda u: radius - ones @ u, "jac": lambda u: -ones})
    result = optimize.minimize(
        objective,
        np.zeros(2 * p + 1),
        jac=True,
        method="SLSQP",
        bounds=[(0.0, bound)] * (2 * p) + [(-bound, bound)],
        constraints=constraints,
        options={"maxiter": max_iter, "ftol": 1e-12},
    )
    if not result.success:
        raise ConvergenceError(f"reachable-set {task} fit (radius {radius}): {result.message}")
    return split(result.x)
