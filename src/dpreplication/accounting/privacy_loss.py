"""The privacy loss of a mechanism with a discrete output, computed exactly from its pmfs.

A mechanism ``M`` is ε-DP iff ``|ln P(M(D) = r) − ln P(M(D') = r)| ≤ ε`` for every output ``r`` and
every pair of neighbours ``D ~ D'`` (Dwork & Roth, Def. 2.4 with δ = 0). The audits evaluate the
left side on chosen and random pairs.
"""

from __future__ import annotations

import numpy as np

from dpreplication.validation import non_negative_array


def max_privacy_loss(pmf, neighbour_pmf) -> float:
    """``max_r |ln P(r) − ln P'(r)|`` of two output pmfs on neighbouring inputs.

    The mechanism is ε-DP on this pair iff the result is ``≤ ε`` (module docstring).

    Parameters
    ----------
    pmf : array_like of float, entries in [0, 1]
        ``P(M(D) = r)`` for every output ``r``.
    neighbour_pmf : array_like of float, entries in [0, 1]
        ``P(M(D') = r)`` on the same outputs, for a neighbour ``D'`` of ``D``.

    Returns
    -------
    float
        The largest absolute log-ratio: ``∞`` where exactly one pmf is 0; an output that neither
        input can produce (both 0) carries no privacy loss.

    Raises
    ------
    ValueError
        If a probability is negative or not finite (a NaN used to come back as the loss).
    """
    p, q = non_negative_array("pmf", pmf), non_negative_array("neighbour_pmf", neighbour_pmf)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.abs(np.log(p) - np.log(q))
    return float(np.max(np.where((p == 0) & (q == 0), 0.0, loss)))
