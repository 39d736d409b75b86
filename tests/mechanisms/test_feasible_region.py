"""Tests of :mod:`dpreplication.mechanisms.feasible_region` (DaRRM spec §6.4). Its docstrings state
that the pairs ``(p, p')`` of one (ε, Δ)-DP binary mechanism form the region F cut out of
``[0, 1]²`` by four DP inequalities, the convex hull of its vertices (8 if Δ > 0, else 4), and that
DaRRM's privacy cost, linear in each pair, takes its extremes on the ``C(K+V−1, V−1)`` vertex
multisets of F^K (Lemma 5.1), whose vote-count pmfs are the Poisson binomials of those vertices."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpreplication.mechanisms import feasible_region
from dpreplication.mechanisms import majority as M


def rng(*keys):
    return np.random.default_rng([20240, *keys])


# --------------------------------------------------------------------------- §6.4 constraint set


@pytest.mark.parametrize("K,Delta,rows", [(11, 0.0, 364), (11, 1e-5, 31_824), (101, 0.0, 182_104)])
def test_vertex_multiset_counts(K, Delta, rows):
    family = feasible_region.vertex_multisets(K, 0.1, Delta)
    assert family.n_rows == rows == feasible_region.number_of_vertex_multisets(K, Delta)
    counts = family.counts()
    assert (counts.sum(axis=1) == K).all() and counts.min() >= 0


def test_vertex_multiset_pmfs_match_direct_poisson_binomial():
    family = feasible_region.vertex_multisets(11, 0.3, 1e-3)
    rows = rng(5).choice(family.n_rows, 200, replace=False)
    alpha, alpha_prime = family.pmfs(rows)
    points = np.stack([np.repeat(family.vertices, n, axis=0) for n in family.counts(rows)])
    np.testing.assert_allclose(alpha, M.poisson_binomial_pmf(points[..., 0]), atol=1e-15)
    np.testing.assert_allclose(alpha_prime, M.poisson_binomial_pmf(points[..., 1]), atol=1e-15)


def test_feasible_region_vertices_satisfy_the_dp_inequalities():
    for Delta in (0.0, 0.01):
        vertices = feasible_region.feasible_region_vertices(0.5, Delta)
        assert len(vertices) == (8 if Delta else 4)
        lo, hi = feasible_region.feasible_interval(vertices[:, 0], 0.5, Delta)
        assert np.all(lo <= vertices[:, 1] + 1e-15) and np.all(vertices[:, 1] <= hi + 1e-15)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: feasible_region.feasible_interval(0.5, math.nan), "epsilon must be non-negative and finite, got nan"),
        (lambda: feasible_region.feasible_region_boundaries(0.1, math.nan), r"Delta must lie in \[0, 1\], got nan"),
        (lambda: feasible_region.feasible_region_vertices(0.1, 1.5), r"Delta must lie in \[0, 1\], got 1.5"),
        (lambda: feasible_region.privacy_budget(3, 0.1, math.nan), r"delta must lie in \[0, 1\), got nan"),
        (lambda: feasible_region.privacy_budget(math.inf, 0.1, 0.0), "m must be non-negative and finite, got inf"),
        (
            lambda: feasible_region.privacy_cost(np.ones(4), np.ones(4), np.ones(4), 1, -0.1),
            "epsilon must be non-negative",
        ),
    ],
)
def test_region_and_budget_refuse_nan_and_out_of_range_arguments(call, message):
    """Before, a NaN ε or δ went through as NaN bounds and budgets (which no comparison can fail)."""
    with pytest.raises(ValueError, match=message):
        call()
