"""Intervals of summaries of mean estimates: delta-method log ratios, interval arithmetic, Bonferroni.

A summary of several estimates (the largest gap over an ε grid, a difference of two curves' final
values) gets its interval from the estimates' own intervals by the same operation (interval
arithmetic): if every input interval covers its quantity, the output interval covers the summary.
Over ``k`` cells, each bound of the summary is the one-sided bound it needs at the level it needs
(:func:`t_bounds` at ``α`` or, where any of the ``k`` cells could be the one that errs, ``α/k``:
Bonferroni). The scorecard judges such claims on these intervals
(:mod:`dpreplication.scorecard.uncertainty`).
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def log_ratio_interval(method, baseline, confidence: float = 0.95) -> tuple[float, float]:
    """Return the standard error and half-width of ``log10(mean(baseline) / mean(method))`` over paired runs.

    Delta method: run ``i`` contributes ``(b_i − b̄)/b̄ − (m_i − m̄)/m̄`` to the log ratio; its
    standard error is their standard deviation over √runs, the half-width Student-t's. In log10
    units; NaN with fewer than two runs.
    """
    method, baseline = np.asarray(method, dtype=float), np.asarray(baseline, dtype=float)
    runs = method.size
    if runs < 2:
        return np.nan, np.nan
    influence = (baseline - baseline.mean()) / baseline.mean() - (method - method.mean()) / method.mean()
    se = float(influence.std(ddof=1) / np.sqrt(runs) / np.log(10))
    return se, float(stats.t.ppf(0.5 + confidence / 2, runs - 1)) * se


ONE_SIDED_LEVEL = 0.025
"""The error rate per side of every interval verdict (a two-sided 95 % interval at one look)."""


def one_sided_level(looks: int) -> float:
    """Return the one-sided level of each look's interval, ``0.025 / looks`` (Bonferroni over looks)."""
    if isinstance(looks, bool) or not (isinstance(looks, (int, np.integer)) and looks >= 1):
        raise ValueError(f"looks must be a positive integer, got {looks!r}")
    return ONE_SIDED_LEVEL / int(looks)


def confidence(looks: int) -> float:
    """Return the two-sided confidence of each look's interval, ``1 − 2 · 0.025 / looks``."""
    return 1 - 2 * one_sided_level(looks)


def t_bounds(mean, se, runs, one_sided: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the Student-t bounds ``mean ∓ t_{1−one_sided, runs−1} · se`` (elementwise): each misses at ``one_sided``."""
    mean, se, runs = (np.asarray(x, dtype=float) for x in (mean, se, runs))
    half = stats.t.isf(one_sided, np.maximum(runs - 1, 1)) * se
    return mean - half, mean + half


def abs_bounds(low, high) -> tuple[np.ndarray, np.ndarray]:
    """Return the interval of ``|x|`` for ``x`` in ``[low, high]`` (elementwise)."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    straddles = (low <= 0) & (high >= 0)
    return np.where(straddles, 0.0, np.minimum(np.abs(low), np.abs(high))), np.maximum(np.abs(low), np.abs(high))


def with_interval(row: dict, name: str, value: float, low: float, high: float, runs: float | None = None) -> None:
    """Add ``name`` and its interval ``<name>_ci_low``/``<name>_ci_high`` to ``row`` (and ``<name>_runs``)."""
    row.update({name: float(value), f"{name}_ci_low": float(low), f"{name}_ci_high": float(high)})
    if runs is not None:
        row[f"{name}_runs"] = int(runs)
