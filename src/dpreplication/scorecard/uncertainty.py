"""Verdicts from confidence intervals: the rule for claims whose value comes from random draws.

A claim's criterion is an accepted region ``[low, high]`` of the reproduced value (strict at an
``lt``/``gt`` bound). For a value from random draws the table row carries its 95 % confidence
interval ``[ci_low, ci_high]`` and the verdict is read from the interval, not the point:

- ``pass`` when the whole interval lies in the accepted region;
- ``fail`` when the whole interval lies outside it;
- ``inconclusive`` otherwise: the draws cannot tell, whatever the point estimate says.

An inconclusive claim states ``runs_to_resolve``: the runs at which an interval of the observed
spread (its half-width shrinking as 1/√runs) would clear the nearest bound of the region,
``ceil(runs · (half-width / distance)²)``. Every interval claim also has ``p_decisive``, the
one-sided normal p-value of its verdict, ``Φ(−1.96 · distance / half-width)``: the verdict is
decisive exactly when ``p_decisive < 0.025``, so Holm's and Benjamini–Hochberg's adjustments over
a paper's interval claims can be read off it (:func:`adjusted_decisive`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

Z95 = float(norm.ppf(0.975))
"""The normal quantile of a two-sided 95 % interval; one side of it is a one-sided 2.5 % test."""
ONE_SIDED_LEVEL = 0.025


def interval_verdict(low: float, high: float, strict: bool, ci_low: float, ci_high: float) -> str:
    """``pass`` / ``fail`` / ``inconclusive`` of an interval against the accepted region ``[low, high]``.

    ``strict``: the region is open at its finite bound (an ``lt``/``gt`` criterion).
    """
    if strict:
        inside = low < ci_low and ci_high < high
        outside = ci_high <= low or ci_low >= high
    else:
        inside = low <= ci_low and ci_high <= high
        outside = ci_high < low or ci_low > high
    return "pass" if inside else "fail" if outside else "inconclusive"


def _distance_and_spread(low: float, high: float, value: float, ci_low: float, ci_high: float) -> tuple[float, float]:
    """Distance from ``value`` to the nearest bound that decides, and the interval's half-width towards it."""
    if low <= value <= high:
        to_low, to_high = value - low, high - value
        if to_low <= to_high:
            return to_low, value - ci_low
        return to_high, ci_high - value
    if value < low:
        return low - value, ci_high - value
    return value - high, value - ci_low


def runs_to_resolve(low: float, high: float, value: float, ci_low: float, ci_high: float, runs: float) -> float:
    """Return the runs at which the interval, shrinking as 1/√runs at the observed spread, clears the nearest bound.

    ``runs`` when it already does; ``inf`` when the value sits on a bound; NaN when ``runs`` is unknown.
    """
    distance, spread = _distance_and_spread(low, high, value, ci_low, ci_high)
    if spread <= distance or math.isnan(runs):
        return float(runs)
    if distance <= 0:
        return math.inf
    return float(math.ceil(runs * (spread / distance) ** 2))


def p_decisive(low: float, high: float, value: float, ci_low: float, ci_high: float) -> float:
    """One-sided p-value of the verdict, ``Φ(−1.96 · distance / half-width)`` (< 0.025 iff decisive)."""
    distance, spread = _distance_and_spread(low, high, value, ci_low, ci_high)
    if spread <= 0:
        return 0.0 if distance > 0 else 0.5
    return float(norm.sf(Z95 * distance / spread))


def adjusted_decisive(p_values, method: str) -> np.ndarray:
    """Which verdicts stay decisive under ``method`` (``holm`` or ``bh``) over one family, at one-sided 0.025.

    Holm: step-down, the ``i``-th smallest p (from 0) against ``0.025 / (m − i)``, stopping at the
    first that fails. Benjamini–Hochberg: every p up to the largest ``p_(i) ≤ 0.025 · i / m``.
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    keep = np.zeros(m, dtype=bool)
    if method == "holm":
        passing = ranked <= ONE_SIDED_LEVEL / (m - np.arange(m))
        count = m if passing.all() else int(np.argmin(passing))
    elif method == "bh":
        passing = np.nonzero(ranked <= ONE_SIDED_LEVEL * np.arange(1, m + 1) / max(m, 1))[0]
        count = int(passing[-1]) + 1 if passing.size else 0
    else:
        raise ValueError(f"method must be 'holm' or 'bh', got {method!r}")
    keep[order[:count]] = True
    return keep
