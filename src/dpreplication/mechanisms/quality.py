"""Quality (score) functions for private selection over histogram bins.

Both follow McKenna & Sheldon (2020, §5) so that a selection mechanism run
with sensitivity Δ = 1 and ``λ = ε/(2Δ)`` matches their experiments.

Neither function is a mechanism: each computes data-dependent scores. Guarantee: a selection
mechanism of :mod:`dpreplication.mechanisms.selection` run on them with Δ = 1 is ε-DP, as in
McKenna & Sheldon's experiments — the median scores change by at most 1 when one record is
added or removed, and the mode scores are doubled monotone counts (spec §1, :func:`mode_scores`).
"""

from __future__ import annotations

import numpy as np


def mode_scores(counts) -> np.ndarray:
    """Mode: ``q = 2·x``.

    Counts are monotone, so doubling them lets the general ``ε/(2Δ)`` formula run at the
    monotone rate ``ε/Δ`` (spec §1).

    Parameters
    ----------
    counts : array_like of shape (k,)
        Histogram counts ``x_i ≥ 0``.

    Returns
    -------
    ndarray of shape (k,)
        The scores ``2·x``.
    """
    return 2.0 * np.asarray(counts, dtype=float)


def median_scores(counts) -> np.ndarray:
    """Median: ``q_i = -s_i``, ``s_i`` the number of records to move to make bin ``i`` a median.

    With ``A = cumsum(x)``, ``N = Σx`` and ``m = searchsorted(A, N/2)``:
    ``s_i = ⌈N - 2A_i⌉`` for ``i < m``, ``s_m = 0``, ``s_i = ⌈2A_{i-1} - N + 1⌉`` for ``i > m``.

    Parameters
    ----------
    counts : array_like of shape (k,)
        Histogram counts ``x_i ≥ 0``, ``k ≥ 1``.

    Returns
    -------
    ndarray of shape (k,)
        The scores ``q_i = -s_i ≤ 0``; ``q_m = 0`` at the median bin.
    """
    x = np.asarray(counts, dtype=float)
    cumulative = np.cumsum(x)
    total = cumulative[-1]
    median = int(np.searchsorted(cumulative, total / 2))
    index = np.arange(x.size)
    previous = np.concatenate(([0.0], cumulative[:-1]))
    cost = np.where(index < median, np.ceil(total - 2 * cumulative), np.ceil(2 * previous - total + 1))
    cost[median] = 0.0
    return -cost
