"""Comparing samples of a discrete output with an exact pmf, or with each other.

* goodness of fit: Pearson χ² and the G-test after pooling every cell whose
  expected count is below 5 into one cell (Cochran's rule);
* two-sample homogeneity: χ² on the 2 × k contingency table, same pooling;
* total variation ``½ Σ |p̂ - p|`` with a parametric-bootstrap null band;
* Wilson score intervals for cell frequencies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


def counts(samples: np.ndarray, k: int) -> np.ndarray:
    """Histogram of integer outputs ``0..k-1``."""
    return np.bincount(np.asarray(samples, dtype=np.int64), minlength=k)[:k]


def total_variation(p, q) -> float:
    """``TV(p, q) = ½ Σ |p_i - q_i|``."""
    return 0.5 * float(np.abs(np.asarray(p, float) - np.asarray(q, float)).sum())


def _pool_small_cells(expected: np.ndarray, min_expected: float) -> np.ndarray:
    """Group labels: cells with expected count ≥ ``min_expected`` alone, the rest pooled."""
    large = expected >= min_expected
    labels = np.cumsum(large) - 1
    labels[~large] = large.sum()
    return labels


@dataclass(frozen=True)
class GoodnessOfFit:
    """Result of :func:`goodness_of_fit`: Pearson χ² and G statistics, their p-values, the degrees of freedom."""

    chi2: float
    chi2_pvalue: float
    g: float
    g_pvalue: float
    dof: int


def goodness_of_fit(observed, pmf, min_expected: float = 5.0) -> GoodnessOfFit:
    """Pearson χ² and G-test of observed counts against an exact pmf, small cells pooled."""
    observed = np.asarray(observed, dtype=float)
    pmf = np.asarray(pmf, dtype=float)
    expected = observed.sum() * pmf / pmf.sum()
    labels = _pool_small_cells(expected, min_expected)
    obs = np.bincount(labels, weights=observed)
    exp = np.bincount(labels, weights=expected)
    keep = exp > 0
    if np.any(obs[~keep] > 0):
        return GoodnessOfFit(np.inf, 0.0, np.inf, 0.0, int(keep.sum()) - 1)
    obs, exp = obs[keep], exp[keep]
    if obs.size < 2:
        return GoodnessOfFit(0.0, 1.0, 0.0, 1.0, 0)
    chi2, chi2_p = stats.power_divergence(obs, exp, lambda_="pearson")
    g, g_p = stats.power_divergence(obs, exp, lambda_="log-likelihood")
    return GoodnessOfFit(float(chi2), float(chi2_p), float(g), float(g_p), obs.size - 1)


def homogeneity(counts_a, counts_b, min_expected: float = 5.0) -> tuple[float, float]:
    """χ² test that two count vectors come from one distribution; returns (statistic, p)."""
    table = np.vstack([counts_a, counts_b]).astype(float)
    pooled = table.sum(axis=0)
    expected_min = pooled * table.sum(axis=1).min() / table.sum()
    labels = _pool_small_cells(expected_min, min_expected)
    merged = np.vstack([np.bincount(labels, weights=row) for row in table])
    merged = merged[:, merged.sum(axis=0) > 0]
    if merged.shape[1] < 2:
        return 0.0, 1.0
    statistic, pvalue, _, _ = stats.chi2_contingency(merged, correction=False)
    return float(statistic), float(pvalue)


def tv_null_quantiles(pmf, n: int, quantiles, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Quantiles of ``TV(p̂_n, p)`` when ``p̂_n`` is the empirical pmf of ``n`` draws from ``p``.

    Parametric bootstrap over ``draws`` multinomial samples.
    """
    pmf = np.asarray(pmf, dtype=float)
    pmf = pmf / pmf.sum()
    sims = rng.multinomial(n, pmf, size=draws) / n
    tvs = 0.5 * np.abs(sims - pmf).sum(axis=1)
    return np.quantile(tvs, quantiles)


def wilson_interval(successes, n, confidence: float = 0.99) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions ``successes / n``."""
    successes = np.asarray(successes, dtype=float)
    z = stats.norm.ppf(0.5 + confidence / 2)
    phat = successes / n
    centre = (phat + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * np.sqrt(phat * (1 - phat) / n + z**2 / (4 * n**2))
    return centre - half, centre + half


def binomial_z_scores(frequency, probability, n: int) -> np.ndarray:
    """``(p̂ − p)/√(p(1 − p)/n)`` per cell, for frequencies ``p̂`` of ``n`` Bernoulli(p) trials.

    A cell with ``p = 1`` scores 0 when every trial succeeded and ∞ otherwise.
    """
    frequency, p = np.asarray(frequency, dtype=float), np.asarray(probability, dtype=float)
    z = (frequency - p) / np.sqrt(np.maximum(p * (1 - p), 1e-300) / n)
    z[p == 1] = np.where(frequency[p == 1] == 1, 0.0, np.inf)
    return z
