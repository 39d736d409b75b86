"""The private quantile (mechanisms/quantile.py): its exact privacy loss, its law, its sampler.

Privacy is checked exactly: the release has a piecewise-constant density, so on the common
refinement of two neighbouring inputs' gaps the log-density ratio is a finite list of numbers;
every pair of neighbours of a small grid is enumerated. The negative control is GUPT's own
exponent (no ½, i.e. a doubled ε), which must exceed ε on the same grid.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import special, stats

from dpreplication.mechanisms.quantile import (
    private_quantile,
    private_quantile_log_pdf,
    private_quantile_log_probabilities,
)

LOWER, UPPER = -1.0, 1.0
GRID = (-1.5, -0.6, -0.5, 0.1, 0.9, 1.0)
"""Values for the enumeration: inside the range, on its ends and outside it (clipped), with ties."""


def privacy_loss(values, neighbour, quantile, epsilon) -> float:
    """``max_x |log p(x) − log p'(x)|`` over ``[lower, upper]``, exactly (piecewise-constant densities)."""
    ends = np.unique(np.clip(np.concatenate([values, neighbour, [LOWER, UPPER]]), LOWER, UPPER))
    cells = (ends[1:] + ends[:-1]) / 2  # one point inside each cell of the common refinement
    log_p = private_quantile_log_pdf(cells, values, quantile, epsilon, LOWER, UPPER)
    log_q = private_quantile_log_pdf(cells, neighbour, quantile, epsilon, LOWER, UPPER)
    return float(np.max(np.abs(log_p - log_q)))


def worst_loss(quantile, epsilon, n=3) -> float:
    """Largest privacy loss over every dataset of ``n`` grid values and every one-value replacement."""
    worst = 0.0
    for values in itertools.product(GRID, repeat=n):
        for position, replacement in itertools.product(range(n), GRID):
            if replacement != values[position]:
                neighbour = list(values)
                neighbour[position] = replacement
                worst = max(worst, privacy_loss(values, neighbour, quantile, epsilon))
    return worst


@pytest.mark.parametrize("quantile", [0.25, 0.5, 0.75])
def test_privacy_loss_is_at_most_epsilon(quantile):
    """ε = 1: max over neighbours of max_x |log p − log p'| ≤ ε (+1e-9), and it comes close to ε."""
    loss = worst_loss(quantile, 1.0)
    assert loss <= 1.0 + 1e-9, f"quantile {quantile}: privacy loss {loss} > ε = 1"
    assert loss > 0.45  # the check sees a real loss (the bound is not met vacuously)


@pytest.mark.parametrize("quantile", [0.25, 0.5])
def test_negative_control_doubled_epsilon_breaks_the_bound(quantile):
    """GUPT's code weights the gaps by exp(−ε|i − qk|) (no ½): that is this mechanism at 2ε, which
    must violate the ε bound on the same grid."""
    assert worst_loss(quantile, 2.0) > 1.0 + 0.5


def test_law_sums_to_one_and_matches_the_density():
    values = [0.3, -0.2, 0.3, 2.0, -0.9]
    edges, log_p = private_quantile_log_probabilities(values, 0.25, 0.7, LOWER, UPPER)
    assert edges.tolist() == [-1.0, -0.9, -0.2, 0.3, 0.3, 1.0, 1.0]
    assert special.logsumexp(log_p) == pytest.approx(0.0, abs=1e-12)
    assert np.isneginf(log_p[[3, 5]]).all()  # empty gaps: the tie at 0.3 and the clipped 2.0 at the end
    middles = (edges[1:] + edges[:-1]) / 2
    density = np.exp(private_quantile_log_pdf(middles, values, 0.25, 0.7, LOWER, UPPER))
    full = np.diff(edges) > 0
    np.testing.assert_allclose(density[full] * np.diff(edges)[full], np.exp(log_p[full]), rtol=1e-12)
    assert np.isneginf(private_quantile_log_pdf([-1.01, 1.01], values, 0.25, 0.7, LOWER, UPPER)).all()


def test_scores_follow_gupt_target_rank():
    """Gap i holds i values below it; the score is −|i − q·(n+1)| (GUPT's q·k, k = n + 1 gaps), halved
    by ε/2: with equal gaps, log P_i − log P_j = ε/2·(|j − qk| − |i − qk|)."""
    values = [-0.5, 0.0, 0.5]  # four gaps of width 1/2
    _, log_p = private_quantile_log_probabilities(values, 0.25, 2.0, LOWER, UPPER)
    target = 0.25 * 4
    expected = -1.0 * np.abs(np.arange(4) - target)
    np.testing.assert_allclose(log_p - log_p[1], expected - expected[1], atol=1e-12)


def test_log_space_survives_tiny_and_huge_epsilon():
    """200 values: at ε = 1e-9 the law is the widths' (uniform on the range); at ε = 1e6 it sits on the
    gap nearest the target rank q·(n+1) = 150.75, gap 151, without overflow."""
    values = np.linspace(-0.9, 0.9, 200)
    edges, log_p = private_quantile_log_probabilities(values, 0.75, 1e-9, LOWER, UPPER)
    np.testing.assert_allclose(np.exp(log_p), np.diff(edges) / (UPPER - LOWER), rtol=1e-6)
    _, log_p = private_quantile_log_probabilities(values, 0.75, 1e6, LOWER, UPPER)
    assert special.logsumexp(log_p) == pytest.approx(0.0, abs=1e-12)
    assert np.argmax(log_p) == 151 and np.exp(log_p[151]) == pytest.approx(1.0)


def test_sampler_draws_the_law():
    """Chi-square of 20,000 draws' gaps against the exact law (ε = 1, n = 6, GUPT's 25th percentile);
    each draw lies in [lower, upper]."""
    values = [-0.8, -0.3, -0.25, 0.1, 0.4, 3.0]
    edges, log_p = private_quantile_log_probabilities(values, 0.25, 1.0, LOWER, UPPER)
    rng = np.random.default_rng(20)
    draws = np.array([private_quantile(values, 0.25, 1.0, LOWER, UPPER, rng) for _ in range(20_000)])
    assert ((draws >= LOWER) & (draws <= UPPER)).all()
    gaps = np.searchsorted(edges, draws, side="right") - 1
    observed = np.bincount(gaps, minlength=log_p.size)[: log_p.size]
    full = np.isfinite(log_p)
    assert not observed[~full].any()
    assert stats.chisquare(observed[full], draws.size * np.exp(log_p[full])).pvalue > 1e-4


def test_concentrates_at_large_epsilon():
    values = np.random.default_rng(1).normal(0.2, 0.1, 101)
    estimate = private_quantile(values, 0.75, 200.0, LOWER, UPPER, np.random.default_rng(2))
    assert estimate == pytest.approx(np.quantile(values, 0.75), abs=0.02)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"values": []}, "non-empty"),
        ({"values": [[0.1]]}, "non-empty 1-D"),
        ({"values": [np.nan]}, "values must be finite"),
        ({"quantile": 1.5}, "quantile must lie in"),
        ({"epsilon": 0.0}, "epsilon must be positive"),
        ({"epsilon": np.inf}, "epsilon must be positive"),
        ({"lower": 1.0}, "lower < upper"),
        ({"upper": np.inf}, "lower < upper"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    arguments = {"values": [0.0], "quantile": 0.5, "epsilon": 1.0, "lower": LOWER, "upper": UPPER, **kwargs}
    with pytest.raises(ValueError, match=message):
        private_quantile_log_probabilities(**arguments)
