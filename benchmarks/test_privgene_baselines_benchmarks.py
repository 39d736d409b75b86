"""Cost per fit of the PrivGene baselines (run with `make bench`; never part of `make test`).

Adult-shaped synthetic problem (spec §7): n = 39,000 training rows, d = 124
(123 features in {-1, +1}, as a9a after scaling), labels from a noisy linear
rule; k-means on a Lifesci-shaped cloud (26,733 × 10, k = 5). Each benchmark
times one complete fit; ``extra_info`` records the seconds of the fastest round.
"""

import numpy as np
import pytest

from dpreplication.learning import functional_mechanism as fm
from dpreplication.learning import models
from dpreplication.learning import objective_perturbation as erm
from dpreplication.learning import output_perturbation as psvm
from dpreplication.learning import sample_and_aggregate as gupt

N, D, EPSILON = 39_000, 124, 1.0


@pytest.fixture(scope="module")
def adult_shaped():
    rng = np.random.default_rng(2013)
    X = np.where(rng.random((N, D - 1)) < 0.3, 1.0, -1.0)
    z = 0.3 * (X @ rng.normal(size=D - 1)) + 0.5 * rng.normal(size=N)
    y01 = (z > 0).astype(float)
    return X, y01, 2.0 * y01 - 1.0


@pytest.fixture(scope="module")
def lifesci_shaped():
    rng = np.random.default_rng(26_733)
    centres = rng.uniform(-0.6, 0.6, (5, 10))
    return np.clip(centres[rng.integers(5, size=26_733)] + 0.15 * rng.normal(size=(26_733, 10)), -1, 1)


def record(benchmark, function, *args, rounds=3, **kwargs):
    benchmark.pedantic(function, args=args, kwargs=kwargs, rounds=rounds, iterations=1)
    benchmark.extra_info["seconds_per_fit"] = benchmark.stats.stats.min


def test_noprivacy_logistic_regression(benchmark, adult_shaped):
    X, y01, _ = adult_shaped
    record(benchmark, models.fit_logistic_regression, X, y01)


def test_noprivacy_linear_svm_c10(benchmark, adult_shaped):
    X, _, y = adult_shaped
    record(benchmark, models.fit_linear_svm, X, y, 10.0)


def test_noprivacy_linear_svm_c10_lbfgs(benchmark, adult_shaped):
    X, _, y = adult_shaped
    record(benchmark, models.fit_linear_svm, X, y, 10.0, method="lbfgs", rounds=1)


def test_majority(benchmark, adult_shaped):
    _, y01, _ = adult_shaped
    record(benchmark, models.majority_classifier, y01, EPSILON, np.random.default_rng(0), rounds=20)


def test_functional_mechanism(benchmark, adult_shaped):
    X, y01, _ = adult_shaped
    record(benchmark, fm.fit_functional_mechanism, X, y01, EPSILON, np.random.default_rng(0), rounds=10)


@pytest.mark.parametrize("loss", erm.LOSSES)
def test_private_erm(benchmark, adult_shaped, loss):
    X, _, y = adult_shaped
    record(benchmark, erm.fit_private_erm, X, y, EPSILON, np.random.default_rng(0), loss=loss)


def test_private_svm_training(benchmark, adult_shaped):
    X, _, y = adult_shaped
    record(benchmark, psvm.fit_svm_weights, X, y)


def test_private_svm_noise_on_cached_weights(benchmark):
    weights = np.linspace(-1, 1, D)
    record(benchmark, psvm.privatise_svm_weights, weights, N, EPSILON, np.random.default_rng(0), rounds=20)


def test_gupt_logistic_block_fits(benchmark, adult_shaped):
    X, y01, _ = adult_shaped
    blocks = gupt.gupt_partition(N, np.random.default_rng(0))
    record(benchmark, gupt.logistic_block_outputs, X, y01, blocks, rounds=1)
    benchmark.extra_info["blocks"] = len(blocks)


def test_gupt_svm_block_fits(benchmark, adult_shaped):
    X, _, y = adult_shaped
    blocks = gupt.gupt_partition(N, np.random.default_rng(0))
    record(benchmark, gupt.svm_block_outputs, X, y, blocks, rounds=1)
    benchmark.extra_info["blocks"] = len(blocks)


def test_gupt_aggregate(benchmark):
    outputs = np.random.default_rng(0).uniform(-6, 6, (gupt.gupt_block_count(N), D))
    record(benchmark, gupt.gupt_aggregate, outputs, gupt.LINEAR_RANGE, EPSILON, np.random.default_rng(0), rounds=20)


def test_lloyd_kmeans_k5(benchmark, lifesci_shaped):
    record(benchmark, models.lloyd_kmeans, lifesci_shaped, 5, np.random.default_rng(0), rounds=1)


def test_gupt_kmeans_block_fits_k5(benchmark, lifesci_shaped):
    blocks = gupt.gupt_partition(lifesci_shaped.shape[0], np.random.default_rng(0))
    record(benchmark, gupt.kmeans_block_outputs, lifesci_shaped, blocks, 5, np.random.default_rng(1), rounds=1)
    benchmark.extra_info["blocks"] = len(blocks)
