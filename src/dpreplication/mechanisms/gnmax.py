"""GNMax (Papernot et al. 2018), the private aggregation DaRRM's private prediction is compared with.

Each of ``K`` teachers votes for one class; GNMax releases ``argmax_c (n_c + N(0, σ²))``. One
teacher changing its vote moves two counts by one (L2 sensitivity √2), so the release is
``(λ, λ/σ²)``-RDP for every order ``λ > 1`` (:mod:`dpreplication.accounting.rdp`), hence
``(λ/σ² + log(1/δ)/(λ − 1), δ)``-DP for every ``0 < δ < 1`` (data-independent bound, spec §3).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dpreplication.releases.recorder import record_gaussian
from dpreplication.validation import positive

VOTE_SENSITIVITY = float(np.sqrt(2.0))
"""L2 sensitivity of a vector of vote counts: one teacher changing its vote moves two counts by 1."""


def gnmax_aggregate(counts, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """GNMax (Papernot et al. 2018): ``argmax_c (n_c + N(0, σ²))`` per row of vote counts ``(n, C)``.

    Exact ties go to the lowest class index (the authors' ``≥``). Privacy: one teacher changing
    its vote moves two counts by 1 (L2 sensitivity √2), so the noisy counts — and their argmax,
    a post-processing — are ``(λ, λ/σ²)``-RDP for every ``λ > 1``, hence
    ``(λ/σ² + log(1/δ)/(λ − 1), δ)``-DP (:func:`dpreplication.accounting.rdp.gnmax_epsilon`;
    data-independent bound of spec §3).

    Parameters
    ----------
    counts : array_like of shape (n, C) or (C,)
        Vote counts ``n_c ≥ 0`` of the ``K`` teachers per class; a 1-D array is one row.
    sigma : float
        Standard deviation σ of the Gaussian noise, σ > 0 and finite (``ValueError`` otherwise:
        σ = 0 would release the non-private argmax).
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    ndarray of int, shape (n,)
        The released class index in ``0..C−1`` of each row.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import gnmax_aggregate
    >>> gnmax_aggregate([[9, 2], [1, 10]], sigma=3.0, rng=np.random.default_rng(0)).tolist()
    [0, 1]
    """
    positive("sigma", sigma)  # σ = 0 would release the non-private argmax
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    record_gaussian("gnmax_aggregate", sigma, VOTE_SENSITIVITY, count=counts.shape[0])
    return np.argmax(counts + sigma * rng.standard_normal(counts.shape), axis=1)


def gnmax_probability_first(counts, sigma: float) -> np.ndarray:
    """``Pr[GNMax = class 0] = Φ((n_0 − n_1)/(√2 σ))`` for two-class counts ``(n, 2)`` (exact).

    The output distribution of :func:`gnmax_aggregate` (``(λ, λ/σ²)``-RDP, spec §3) for ``C = 2``:
    the difference of the two noises is ``N(0, 2σ²)``.

    Parameters
    ----------
    counts : array_like of shape (n, 2) or (2,)
        Vote counts ``(n_0, n_1)`` per row; a 1-D array is one row.
    sigma : float
        Standard deviation σ of GNMax's noise, σ > 0 and finite (``ValueError`` otherwise).

    Returns
    -------
    ndarray of shape (n,)
        ``Pr[GNMax = 0]`` per row, in ``[0, 1]``.
    """
    positive("sigma", sigma)
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    return special.ndtr((counts[:, 0] - counts[:, 1]) / (np.sqrt(2.0) * sigma))
