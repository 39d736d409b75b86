"""The utility of DaRRM: priors on the mechanisms' probabilities and the error of an ensemble.

DaRRM_γ (Jiang, Zhang & Joshi, TMLR 2024; Algorithm 1, :mod:`dpreplication.mechanisms.majority`)
releases the majority ``g(S) = 1{L ≥ (K+1)/2}`` of ``K`` (odd) private votes with probability
``γ(L)``, otherwise a fair coin; it is ``(mε, δ)``-DP when γ passes
:func:`dpreplication.accounting.privacy_verifier.verify_privacy`. Nothing in this module is a
mechanism: it measures how far DaRRM_γ is from the non-private majority, for simulated
probabilities ``p_i = Pr[M_i(D) = 1]`` drawn from a prior ``T``.

Utility (spec §1.3). ``E(γ) = E_{p∼T} |Pr[A = 1] − Pr[g = 1]| = ½ E_{p∼T} |Σ_l s_l α_l (1 − γ(l))|``,
with ``α_l = Pr[L = l]`` the Poisson-binomial pmf of the vote count and ``s_l = +1`` if
``l > K/2`` else ``−1``. :func:`ensemble_error` is the error per pmf, :func:`monte_carlo_error`
its Monte-Carlo mean over a prior (:class:`ProbabilityPrior`, :data:`PRIORS`). The optimiser's
linear objective (spec §1.4) is :func:`objective_coefficients` (exact form) or
:func:`objective_coefficients_grid` (the authors' Monte-Carlo); :func:`expected_accuracy` is
DaRRM's accuracy when every teacher is correct with the same probability (spec §6.14).

Binomial pmfs are computed by ``scipy.stats`` (log-gamma based), Poisson-binomial pmfs by
:func:`dpreplication.mechanisms.majority.poisson_binomial_pmf`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpreplication.docstrings import shared_parameters
from dpreplication.mechanisms.majority import (
    DARRM_PARAMETERS,
    darrm_probability_one,
    majority_signs,
    poisson_binomial_pmf,
    validate_ensemble_size,
)
from dpreplication.numerics import row_chunks


@dataclass(frozen=True)
class ProbabilityPrior:
    """``p_i ∼ U[low, high]`` i.i.d.; if ``mirrored``, each ``p_i`` is replaced by ``1 − p_i`` w.p. ½.

    A prior ``T`` of spec §1.3 for the utility ``E(γ)``.

    Parameters
    ----------
    name : str
        Label in tables and figures.
    low : float
        Lower end, ``0 ≤ low ≤ high``.
    high : float
        Upper end, ``low ≤ high ≤ 1`` (``low = high``: a point mass).
    mirrored : bool
        Whether to replace each ``p_i`` by ``1 − p_i`` with probability ½.
    """

    name: str
    low: float
    high: float
    mirrored: bool = False

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        """Draw probabilities ``p ∼`` the prior.

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of the draws.
        size : int or tuple of int
            Shape of the draws.
        """
        p = self.low + (self.high - self.low) * rng.random(size)
        if self.mirrored:
            p = np.where(rng.random(size) < 0.5, 1.0 - p, p)
        return p

    @property
    def folded_mean(self) -> float:
        """``q̄ = E[max(p, 1 − p)]``: the success probability of the folded prior on ``[½, 1]``."""
        a, b = self.low, self.high
        if b - a <= 0:
            return float(max(a, 1 - a))

        def antiderivative(t):
            return np.where(t <= 0.5, t - t * t / 2, t * t / 2 + 0.25)

        return float((antiderivative(b) - antiderivative(a)) / (b - a))


UNIFORM_PRIOR = ProbabilityPrior("T_U", 0.0, 1.0)
"""Spec §1.3 ``T_U``: ``p_i ∼ U[0, 1]``; folded mean ``q̄ = 0.75``."""
POLARIZED_PRIOR = ProbabilityPrior("T_P", 0.7, 1.0, mirrored=True)
"""Spec §1.3 ``T_P`` [I]: ``p_i ∼ U([0, .3] ∪ [.7, 1])``; folded mean ``q̄ = 0.85``."""
HALF_PRIOR = ProbabilityPrior("p=0.5", 0.5, 0.5)
"""``p_i = ½``: ``α_l = α_{K−l}`` so every γ has error 0 (spec F9 caveat)."""
NEAR_ZERO_PRIOR = ProbabilityPrior("U[0,0.1]", 0.0, 0.1)
NEAR_HALF_PRIOR = ProbabilityPrior("U[0.4,0.6]", 0.4, 0.6)
"""Non-degenerate stand-in for ``p_i = ½`` (spec F9 caveat)."""

PRIORS = {prior.name: prior for prior in (UNIFORM_PRIOR, POLARIZED_PRIOR, HALF_PRIOR, NEAR_ZERO_PRIOR, NEAR_HALF_PRIOR)}


@shared_parameters(DARRM_PARAMETERS)
def ensemble_error(gamma, alpha) -> np.ndarray:
    """``|Pr[DaRRM_γ = 1] − Pr[g = 1]| = ½ |Σ_l s_l α_l (1 − γ(l))|`` per pmf row (spec §1.3).

    ``gamma`` may be ``(K+1,)`` or a stack ``(G, K+1)``; the result is ``(..., G)`` then.

    Parameters
    ----------
    gamma : array_like of shape (K + 1,) or (G, K + 1)
        One γ or a stack of them, entries in ``[0, 1]``.
    {alpha}

    Returns
    -------
    ndarray of shape (...) or (..., G)
        The error per pmf row (and per γ).
    """
    alpha = np.asarray(alpha, dtype=float)
    s = majority_signs(alpha.shape[-1] - 1)
    weights = s * (1.0 - np.asarray(gamma, dtype=float))
    return 0.5 * np.abs(alpha @ weights.T)


@shared_parameters(DARRM_PARAMETERS)
def monte_carlo_error(
    gammas,
    K: int,
    prior: ProbabilityPrior,
    n_draws: int,
    n_repeats: int,
    rng: np.random.Generator,
    zero_below: float = 0.0,
    max_cells: int = 1 << 22,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and std over ``n_repeats`` of the Monte-Carlo estimate ``E(γ)`` (spec §1.3).

    Each estimate averages ``n_draws`` vectors ``p ∼ prior`` (the paper uses 10⁴ draws × 5–10 repeats).
    All γ share the same draws (common random numbers). Means below ``zero_below`` are
    reported as 0 (the paper zeroes values below 1e-5). Returns two arrays of length ``G``.
    Not a mechanism: it estimates the utility of the ``(mε, δ)``-DP DaRRM_γ (Algorithm 1) from
    simulated probabilities, not from data.

    Parameters
    ----------
    gammas : array_like of shape (G, K + 1) or (K + 1,)
        The γ to evaluate, entries in ``[0, 1]``.
    {K}
    prior : ProbabilityPrior
        The prior ``T`` of the ``p_i``.
    n_draws : int
        Draws per estimate, ``n_draws ≥ 1``.
    n_repeats : int
        Number of estimates, ``n_repeats ≥ 1`` (std 0 when 1).
    rng : numpy.random.Generator
        Source of the draws.
    zero_below : float
        Means below this (≥ 0) are reported as 0, with std 0.
    max_cells : int
        Memory bound: most pmf cells per chunk, ``max_cells ≥ 1``.

    Returns
    -------
    tuple of ndarray
        ``(mean, std)``, each of shape ``(G,)``.
    """
    gammas = np.atleast_2d(np.asarray(gammas, dtype=float))
    estimates = np.zeros((n_repeats, gammas.shape[0]))
    for repeat in range(n_repeats):
        total = np.zeros(gammas.shape[0])
        for start, stop in row_chunks(n_draws, 2 * (K + 1), max_cells):
            alpha = poisson_binomial_pmf(prior.sample(rng, (stop - start, K)))
            total += ensemble_error(gammas, alpha).sum(axis=0)
        estimates[repeat] = total / n_draws
    mean = estimates.mean(axis=0)
    std = estimates.std(axis=0) if n_repeats > 1 else np.zeros_like(mean)
    small = mean < zero_below
    return np.where(small, 0.0, mean), np.where(small, 0.0, std)


@shared_parameters(DARRM_PARAMETERS)
def objective_coefficients(K: int, mean_probability: float = 0.75) -> np.ndarray:
    """``c_l = Bin(l; K, q̄) − Bin(K−l; K, q̄)`` for ``l = (K+1)/2..K`` (spec §1.4, exact form).

    ``E_T[α_l − α_{K−l}]`` over independent ``p_i ∈ [½, 1]`` with mean ``q̄`` [I]: ``q̄ = 0.75``
    for ``T_U`` (0.745 reproduces the authors' 50-point grid), ``0.85`` for ``T_P``.
    Maximising ``c · γ_upper`` minimises the expected error ``E(γ)``.

    Parameters
    ----------
    {K}
    mean_probability : float
        Folded mean ``q̄ ∈ [½, 1]``.

    Returns
    -------
    ndarray of shape ((K + 1)/2,)
        ``c_l`` for ``l = (K+1)/2..K``.
    """
    K = validate_ensemble_size(K)
    l = np.arange((K + 1) // 2, K + 1)
    return stats.binom.pmf(l, K, mean_probability) - stats.binom.pmf(K - l, K, mean_probability)


@shared_parameters(DARRM_PARAMETERS)
def objective_coefficients_grid(
    K: int,
    rng: np.random.Generator,
    low: float = 0.5,
    n_grid: int = 50,
    n_samples: int = 10_000,
) -> np.ndarray:
    """Compute the authors' Monte-Carlo ``c_l`` (spec §1.4).

    The mean of ``α_l − α_{K−l}`` over ``n_samples``
    K-tuples of the ``n_grid`` left endpoints of ``[low, 1)``. Their extra factor
    ``(Δp)^K K! C(n_grid+K−1, K)`` is a positive constant and is omitted (same argmax).
    Not a mechanism: an objective for optimising γ; the ``(mε, δ)``-DP of the result is checked
    separately (spec §1.1).

    Parameters
    ----------
    {K}
    rng : numpy.random.Generator
        Source of the K-tuples.
    low : float
        Left end of the grid, ``0 ≤ low < 1`` (the authors use ½).
    n_grid : int
        Number of grid points, ``n_grid ≥ 1``.
    n_samples : int
        Number of K-tuples, ``n_samples ≥ 1``.

    Returns
    -------
    ndarray of shape ((K + 1)/2,)
        ``c_l`` for ``l = (K+1)/2..K``.
    """
    K = validate_ensemble_size(K)
    grid = low + (1.0 - low) * np.arange(n_grid) / n_grid
    alpha = poisson_binomial_pmf(grid[rng.integers(0, n_grid, size=(n_samples, K))])
    half = (K + 1) // 2
    return (alpha[:, half:] - alpha[:, :half][:, ::-1]).mean(axis=0)


@shared_parameters(DARRM_PARAMETERS)
def expected_accuracy(gamma, accuracy: float) -> float:
    """``Σ_l Bin(l; K, a)[γ(l)1{l > K/2} + (1 − γ(l))/2]``: Pr[DaRRM outputs the true label].

    Every teacher is correct independently with probability ``a`` (spec §6.14).

    Parameters
    ----------
    {gamma}
    accuracy : float
        Each teacher's accuracy ``a ∈ [0, 1]``.
    """
    gamma = np.asarray(gamma, dtype=float)
    K = gamma.size - 1
    alpha = stats.binom.pmf(np.arange(K + 1), K, accuracy)
    return float(darrm_probability_one(gamma, alpha))
