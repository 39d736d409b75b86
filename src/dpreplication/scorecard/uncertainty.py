"""Verdicts from confidence intervals: the rule for claims whose value comes from random draws.

A claim's criterion is an accepted region ``H = [low, high]`` of the reproduced value (strict at
an ``lt``/``gt`` bound). Its quantity has a **margin** ``m``, the smallest effect of interest,
fixed per quantity in the registry before any result (``margins:``): a difference smaller than
``m`` is one the paper's own statements cannot resolve. For a value from random draws the table
row carries its confidence interval ``[ci_low, ci_high]`` and the verdict is read from the
interval, not the point:

- ``pass`` when the whole interval lies in ``H``;
- ``fail`` when the whole interval lies outside ``H`` shrunk by the margin, ``[low + m, high − m]``:
  the draws exclude every value that holds with the margin to spare. For a superiority claim
  ("beats", "below") that is an advantage as large as ``m``; for a tolerance claim ("close to",
  "comparable") a gap within ``τ − m`` of the expected value: a tie at the tolerance's edge
  counts against the claim;
- ``inconclusive`` otherwise.

A two-sided region narrower than ``2m`` shrinks by half its width only (to its centre), so a value
at the expected value itself never fails (:func:`shrunk_region`). The two decision bounds lie
(at most) ``m`` apart, so once the interval is narrower than ``m`` one of the
two holds: every claim is decided in finitely many runs, and :func:`runs_to_decide` says how
many (at the observed spread, which does not depend on the value: a second stage sized by it
does not peek at the effect). A margin of 0 gives the two-sided rule (``fail`` only outside ``H``).

Error control. A wrong ``pass`` needs the interval to miss a true value on ``H``'s bound, a wrong
``fail`` to miss a true value on the shrunk bound: each has probability at most the interval's
one-sided level. A verdict that may be read at two looks (the first stage, then the first and
second stages together) uses intervals at one-sided level ``0.025 / looks`` at every look
(Bonferroni over looks, the conservative case of alpha spending: Lan & DeMets 1983; see
:func:`one_sided_level`), so its error over all looks stays ≤ 2.5 % per side.

Every interval claim also has ``p_decisive``, the one-sided p-value of its verdict scaled by its
looks, ``min(1, looks · Φ(−z · distance / half-width))`` with ``z`` the interval's quantile and the
half-width measured towards each bound: the verdict is decisive exactly when ``p_decisive <
0.025``, so Holm's and Benjamini–Hochberg's adjustments over a paper's interval claims can be read
off it (:func:`adjusted_decisive`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from dpreplication.statistics.intervals import ONE_SIDED_LEVEL, confidence, one_sided_level

__all__ = [
    "ONE_SIDED_LEVEL",
    "Z95",
    "adjusted_decisive",
    "confidence",
    "effective_margin",
    "interval_verdict",
    "one_sided_level",
    "p_decisive",
    "runs_to_decide",
    "runs_to_resolve",
    "shrunk_region",
]

Z95 = float(norm.ppf(1 - ONE_SIDED_LEVEL))
"""The normal quantile of a two-sided 95 % interval; one side of it is a one-sided 2.5 % test."""


def effective_margin(low: float, high: float, margin: float) -> float:
    """Return the margin, capped at half the width of a two-sided region ``[low, high]``."""
    return min(margin, (high - low) / 2) if math.isfinite(low) and math.isfinite(high) else margin


def shrunk_region(low: float, high: float, margin: float) -> tuple[float, float]:
    """Return ``[low + m, high − m]`` with ``m`` the :func:`effective_margin`.

    The values that hold with the margin to spare: an interval that excludes them fails.
    """
    margin = effective_margin(low, high, margin)
    return low + margin, high - margin


def interval_verdict(low: float, high: float, strict: bool, ci_low: float, ci_high: float, margin: float = 0.0) -> str:
    """``pass`` / ``fail`` / ``inconclusive`` of an interval against the accepted region ``[low, high]``.

    ``strict``: the region is open at its finite bound (an ``lt``/``gt`` criterion). ``fail``
    needs the interval outside the region shrunk by ``margin`` (the module docstring).
    """
    if strict:
        inside = low < ci_low and ci_high < high
    else:
        inside = low <= ci_low and ci_high <= high
    if inside:
        return "pass"
    if margin > 0:
        inner_low, inner_high = shrunk_region(low, high, margin)
        outside = ci_high < inner_low or ci_low > inner_high
    elif strict:
        outside = ci_high <= low or ci_low >= high
    else:
        outside = ci_high < low or ci_low > high
    return "fail" if outside else "inconclusive"


def _tails(low, high, value, ci_low, ci_high, margin) -> tuple[list, list]:
    """Return the (distance, spread) of each bound a verdict must clear: ``H``'s for a pass, the shrunk ones for a fail.

    The distance is signed (positive: the value is on the deciding side); the spread is the
    interval's half-width from the value towards the bound, so an asymmetric interval is read on
    the side that matters.
    """
    upward, downward = ci_high - value, value - ci_low
    inner_low, inner_high = shrunk_region(low, high, margin)
    to_pass = [(high - value, upward)] if math.isfinite(high) else []
    to_pass += [(value - low, downward)] if math.isfinite(low) else []
    to_fail = [(inner_low - value, upward)] if math.isfinite(low) else []
    to_fail += [(value - inner_high, downward)] if math.isfinite(high) else []
    return to_pass, to_fail


def _p(distance: float, spread: float, z: float) -> float:
    if spread <= 0:
        return 0.0 if distance > 0 else 0.5 if distance == 0 else 1.0
    return float(norm.sf(z * distance / spread))


def p_decisive(
    low: float, high: float, value: float, ci_low: float, ci_high: float, margin: float = 0.0, looks: int = 1
) -> float:
    """One-sided p-value of the verdict times ``looks`` (< 0.025 iff decisive; the module docstring).

    A pass must clear every bound of ``H`` (the largest p), a fail one shrunk bound (the
    smallest); an inconclusive claim reports the nearer of the two.
    """
    z = float(norm.isf(one_sided_level(looks)))
    to_pass, to_fail = _tails(low, high, value, ci_low, ci_high, margin)
    p_pass = max(_p(d, s, z) for d, s in to_pass) if to_pass else 1.0
    p_fail = min((_p(d, s, z) for d, s in to_fail), default=1.0)
    level = one_sided_level(looks)
    p = p_pass if p_pass < level else p_fail if p_fail < level else min(p_pass, p_fail)
    return min(1.0, looks * p)


def runs_to_decide(ci_low: float, ci_high: float, runs: float, margin: float) -> float:
    """Return the runs at which an interval of the observed spread is narrower than ``margin``.

    ``ceil(runs · (width / margin)²)``: the half-width shrinks as 1/√runs, and an interval
    narrower than the margin always decides (the module docstring). Only the spread enters, never
    the value, so a second stage sized by it keeps the looks' error rates. ``runs`` when the
    interval already is; ``inf`` without a margin; NaN when ``runs`` is unknown.
    """
    width = ci_high - ci_low
    if math.isnan(runs):
        return math.nan
    if width < margin:
        return float(runs)
    if margin <= 0:
        return math.inf
    return float(math.ceil(runs * (width / margin) ** 2))


def runs_to_resolve(
    low: float, high: float, value: float, ci_low: float, ci_high: float, runs: float, margin: float = 0.0
) -> float:
    """Return the runs at which the interval, shrinking as 1/√runs at the observed spread, decides.

    The fewest over the bounds that would decide (a pass needs all of ``H``'s, a fail one shrunk
    bound), and never more than :func:`runs_to_decide`. ``runs`` when it already decides; ``inf``
    when no margin and the value sits on a bound; NaN when ``runs`` is unknown.
    """
    if math.isnan(runs):
        return math.nan
    to_pass, to_fail = _tails(low, high, value, ci_low, ci_high, margin)

    def needed(distance, spread):
        if spread < distance:
            return float(runs)
        return math.ceil(runs * (spread / distance) ** 2) if distance > 0 else math.inf

    passing = max((needed(d, s) for d, s in to_pass), default=math.inf)
    failing = min((needed(d, s) for d, s in to_fail), default=math.inf)
    decided = runs_to_decide(ci_low, ci_high, runs, effective_margin(low, high, margin))
    return float(min(passing, failing, decided))


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
