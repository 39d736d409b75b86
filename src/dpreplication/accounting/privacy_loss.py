"""The privacy loss of a mechanism with a discrete output, computed exactly from its pmfs.

A mechanism ``M`` is ε-DP iff ``|ln P(M(D) = r) − ln P(M(D') = r)| ≤ ε`` for every output ``r`` and
every pair of neighbours ``D ~ D'`` (Dwork & Roth, Def. 2.4 with δ = 0). The audits evaluate the
left side on chosen and random pairs.
"""

from __future__ import annotations

import numpy as np


def max_privacy_loss(pmf, neighbour_pmf) -> float:
    """``max_r |ln P(r) − ln P'(r)|`` of two output pmfs on neighbouring inputs (∞ where the supports differ)."""
    return float(np.max(np.abs(np.log(pmf) - np.log(neighbour_pmf))))
