"""Benchmarks of PrivGene's vectorised fitness (run with `make bench`; never part of `make test`).

Records, in the JSON's extra_info, the ratio of one generation's fitness evaluation (200
distinct candidates, Adult's shape n = 39,074, d = 124, float64) to the bare matrix product
``[X, 1] @ Ωᵀ`` of the same shape (goal ≤ 1.5×), for LR and the SVM, and the time of a
whole DP_Select step (fitness, Δ1, Δ2 and the selection).
"""

import timeit

import numpy as np
import pytest

from dpreplication.learning.fitness import LogisticFitness, SVMFitness
from dpreplication.learning.models import with_bias
from dpreplication.mechanisms.enhanced_exponential import dampening_factor, select

N, D, M = 39_074, 123, 200
RNG = np.random.default_rng(0)
X = np.where(RNG.random((N, D)) < 0.11, 1.0, -1.0)  # Adult-like ±1 features
Y = (RNG.random(N) < 0.24).astype(float)
CANDIDATES = RNG.uniform(-5, 5, size=(M, D + 1))  # distinct rows: no deduplication shortcut
DESIGN = with_bias(X)


def bare_product() -> float:
    """The fastest of seven runs of the bare matrix product of the same shape."""
    transposed = np.ascontiguousarray(CANDIDATES.T)
    return min(timeit.repeat(lambda: DESIGN @ transposed, number=1, repeat=7))


@pytest.mark.parametrize("task", ["lr", "svm"])
def test_generation_against_bare_matrix_product(benchmark, task):
    fitness = LogisticFitness(X, Y) if task == "lr" else SVMFitness(X, 2 * Y - 1)
    fitness.scores(CANDIDATES)
    benchmark(fitness.scores, CANDIDATES)
    product = bare_product()
    benchmark.extra_info["bare_matmul_seconds"] = product
    benchmark.extra_info["ratio_to_bare_matmul"] = benchmark.stats.stats.min / product


def test_dp_select_step(benchmark):
    fitness = LogisticFitness(X, Y)
    rng = np.random.default_rng(1)

    def step():
        delta = dampening_factor(fitness.delta1(CANDIDATES), fitness.delta2(CANDIDATES), "eem")
        return select(fitness.scores(CANDIDATES), 0.02, delta, 1, rng)

    benchmark(step)
    benchmark.extra_info["seconds_min"] = benchmark.stats.stats.min
