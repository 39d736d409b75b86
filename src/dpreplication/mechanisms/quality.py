"""Quality (score) functions for private selection over histogram bins.

Both follow McKenna & Sheldon (2020, §5) so that a selection mechanism run
with sensitivity Δ = 1 and ``λ = ε/(2Δ)`` matches their experiments.
"""

from __future__ import annotations

import numpy as np


def mode_scores(counts) -> np.ndarray:
    """Mode: ``q = 2·x``. Counts are monotone, so doubling them lets the
    general ``ε/(2Δ)`` formula run at the monotone rate ``ε/Δ`` (spec §1)."""
    return 2.0 * np.asarray(counts, dtype=float)


def median_scores(counts) -> np.ndarray:
    """Median: ``q_i = -s_i``, ``s_i`` the number of records to move to make bin ``i`` a median.

    With ``A = cumsum(x)``, ``N = Σx`` and ``m = searchsorted(A, N/2)``:
    ``s_i = ⌈N - 2A_i⌉`` for ``i < m``, ``s_m = 0``, ``s_i = ⌈2A_{i-1} - N + 1⌉`` for ``i > m``.
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
