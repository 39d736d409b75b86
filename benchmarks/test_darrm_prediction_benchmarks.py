"""Cost of the DaRRM private-prediction pieces (run with `make bench`; never part of `make test`).

One DP-SGD teacher as in the default profile (1,024 MNIST-shaped images, batch 32, 104
Poisson-sampled steps, σ = 10, clip 1, one thread), the same shard without privacy (one epoch),
and one accuracy-table cell (10 draws × Q = 100 on an 11 × 2,000 vote matrix, γ_opt memoised).
"""

import numpy as np
import pytest

from dpreplication.replications.darrm import prediction as dp

SETTINGS = {"datasets": {"mnist": {"epsilon_teacher": 0.0892}}, "teachers": 11, "Delta": 1e-4, "mean_probability": 0.75}


@pytest.fixture(scope="module")
def shard():
    rng = np.random.default_rng(1024)
    return rng.integers(0, 256, (1024, 28, 28), dtype=np.uint8), rng.choice([5, 8], 1024)


def test_dp_sgd_teacher_104_steps(benchmark, shard):
    torch = pytest.importorskip("torch")
    from dpreplication.learning import teachers

    teachers.configure_torch(1)
    benchmark.pedantic(
        teachers.train_private, args=(*shard, 104, 10.0, 1.0, 0.01, 32, 0, torch.device("cpu")), rounds=2, iterations=1
    )
    benchmark.extra_info["seconds_per_step"] = benchmark.stats.stats.min / 104


def test_nonprivate_teacher_one_epoch(benchmark, shard):
    torch = pytest.importorskip("torch")
    from dpreplication.learning import teachers

    teachers.configure_torch(1)
    benchmark.pedantic(
        teachers.train_nonprivate, args=(*shard, 1, 0.01, 32, 0, torch.device("cpu")), rounds=2, iterations=1
    )


def test_accuracy_cell(benchmark):
    rng = np.random.default_rng(2)
    truth = rng.choice([5, 8], 2_000)
    votes = np.where(rng.random((11, 2_000)) < 0.85, truth, 13 - truth)
    gamma = dp.gamma_opt(SETTINGS, "mnist", 3, "highs")
    benchmark(dp.simulate_queries, votes, votes, truth, [5, 8], 3, 100, 10, 21.46, gamma, 0, "bench")
