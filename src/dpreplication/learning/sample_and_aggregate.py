"""GUPT: sample-and-aggregate (Mohan, Thakurta, Shi, Song & Culler, SIGMOD 2012), spec §3.6.

The data are split at random into ``ℓ = ⌊n^0.4⌋`` disjoint blocks; a
non-private algorithm runs on each block; each of its ``p`` output coordinates
is clamped to a public range ``[lo, hi]``; the block outputs are averaged and
Laplace noise of scale ``p·(hi - lo)/(ℓ·φ·ε)`` is added per coordinate, where
``φ`` (``eps_fraction``) is the share of ``ε`` spent on aggregation (1 by
default: the range is given, so GUPT's range-estimation step is skipped).

Guarantee: ε-DP under replace-one neighbours. The partition depends only on
indices, so replacing one tuple changes one block's clamped output, moving the
average by at most ``(hi - lo)/ℓ`` per coordinate: L1 sensitivity
``p·(hi - lo)/ℓ``. With ``φ < 1`` the mechanism spends only ``φ·ε``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dpreplication.learning.models import PRIVATE_SVM_C, fit_linear_svm, fit_logistic_regression, lloyd_kmeans
from dpreplication.mechanisms.additive import laplace_mechanism
from dpreplication.validation import in_unit_interval, positive

BLOCK_EXPONENT = 0.4
LINEAR_RANGE = (-5.0, 5.0)
CENTRE_RANGE = (-1.0, 1.0)
BLOCK_LR_RIDGE = 1e-6


def gupt_block_count(n: int) -> int:
    """``ℓ = ⌊n^0.4⌋`` (Adult 39,074 → 68, Lifesci 26,733 → 58)."""
    return int(np.floor(float(n) ** BLOCK_EXPONENT))


def gupt_partition(n: int, rng: np.random.Generator, n_blocks: int | None = None) -> list[np.ndarray]:
    """Partition ``0..n-1`` uniformly at random into ``ℓ`` disjoint blocks of ``⌊n/ℓ⌋`` or ``⌈n/ℓ⌉`` indices."""
    return np.array_split(rng.permutation(n), gupt_block_count(n) if n_blocks is None else n_blocks)


def block_outputs(blocks: Sequence[np.ndarray], fit: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Stack ``fit(block_indices)`` over the blocks: ``(ℓ, p)``. The fits do not depend on ε (reuse them)."""
    return np.stack([np.ravel(fit(block)) for block in blocks])


def logistic_block_outputs(X: np.ndarray, y: np.ndarray, blocks, ridge: float = BLOCK_LR_RIDGE) -> np.ndarray:
    """Per-block LR (Newton with a 1e-6 ridge: small blocks can be separable), ``y ∈ {0,1}``."""
    return block_outputs(blocks, lambda block: fit_logistic_regression(X[block], y[block], ridge=ridge))


def svm_block_outputs(X: np.ndarray, y_pm: np.ndarray, blocks, C: float = PRIVATE_SVM_C) -> np.ndarray:
    """Per-block Definition-2 linear SVM with ``C = 10``, ``y ∈ {-1,+1}``."""
    return block_outputs(blocks, lambda block: fit_linear_svm(X[block], y_pm[block], C))


def sort_centres(centres: np.ndarray) -> np.ndarray:
    """Centres in lexicographic order (first coordinate first): a canonical order so block outputs can be averaged."""
    centres = np.asarray(centres, dtype=float)
    return centres[np.lexsort(centres.T[::-1])]


def kmeans_block_outputs(
    T: np.ndarray, blocks, k: int, rng: np.random.Generator, restarts: int = 10, max_iter: int = 300
) -> np.ndarray:
    """Per-block Lloyd k-means, centres sorted lexicographically and flattened: ``(ℓ, k·dim)``."""
    return block_outputs(blocks, lambda block: sort_centres(lloyd_kmeans(T[block], k, rng, restarts, max_iter)))


def gupt_noise_scale(
    n_outputs: int, value_range: tuple[float, float], n_blocks: int, epsilon: float, eps_fraction: float = 1.0
) -> float:
    """Per-coordinate Laplace scale ``p·(hi - lo)/(ℓ·φ·ε)``; 0 for ``ε = ∞`` (no privacy).

    ``ValueError`` unless ``ε > 0`` (``inf`` allowed) and ``0 < φ ≤ 1``.
    """
    positive("epsilon", epsilon, allow_infinity=True)
    in_unit_interval("eps_fraction", eps_fraction, include_zero=False, include_one=True)
    lo, hi = value_range
    return n_outputs * (hi - lo) / (n_blocks * eps_fraction * epsilon)


def gupt_aggregate(
    outputs: np.ndarray,
    value_range: tuple[float, float],
    epsilon: float,
    rng: np.random.Generator,
    eps_fraction: float = 1.0,
) -> np.ndarray:
    """Clamp the ``(ℓ, p)`` block outputs to ``[lo, hi]``, average, add ``Lap(p·(hi-lo)/(ℓ·φ·ε))`` per coordinate.

    Guarantee: ``φ·ε``-DP under replace-one neighbours (Laplace mechanism at L1 sensitivity
    ``p·(hi - lo)/ℓ``; GUPT's sample-and-aggregate, spec §3.6), provided the rows of
    ``outputs`` come from disjoint blocks chosen from the indices alone (:func:`gupt_partition`)
    and each depends only on its own block. ``ε = ∞`` returns the noiseless
    mean (a non-private reference). The noisy output is not clamped (as in GUPT).

    Parameters
    ----------
    outputs : numpy.ndarray, shape (ℓ, p)
        One row of ``p`` outputs per block (:func:`block_outputs`).
    value_range : tuple of float, (lo, hi) with lo < hi
        Public clamping range of every output coordinate.
    epsilon : float, ε > 0, or ``inf``
        Privacy budget; ``inf`` disables the noise (NaN: ``ValueError``).
    rng : numpy.random.Generator
        Source of the Laplace noise.
    eps_fraction : float, 0 < φ ≤ 1
        Share ``φ`` of ``ε`` spent on the aggregation (``ValueError`` otherwise).

    Returns
    -------
    numpy.ndarray, shape (p,)
        The noisy mean of the clamped block outputs.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.learning import gupt_aggregate
    >>> block_outputs = np.full((50, 2), 0.5)  # 50 blocks agree on (0.5, 0.5)
    >>> gupt_aggregate(
    ...     block_outputs, value_range=(-1.0, 1.0), epsilon=1.0, rng=np.random.default_rng(0)
    ... ).round(3).tolist()
    [0.526, 0.451]
    """
    positive("epsilon", epsilon, allow_infinity=True)
    in_unit_interval("eps_fraction", eps_fraction, include_zero=False, include_one=True)
    outputs = np.asarray(outputs, dtype=float)
    lo, hi = value_range
    n_blocks, n_outputs = outputs.shape
    mean = np.clip(outputs, lo, hi).mean(axis=0)
    if np.isinf(epsilon):
        return mean
    return laplace_mechanism(mean, eps_fraction * epsilon, rng, sensitivity=n_outputs * (hi - lo) / n_blocks)
