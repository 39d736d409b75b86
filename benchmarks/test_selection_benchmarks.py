"""Benchmarks of the selection mechanisms (run with `make bench`; never part of `make test`).

Records, in the JSON's extra_info, the ratio of A1's sampling time to raw
``rng.exponential`` for the same number of draws (goal ≤ 2×) and the time of
the exact P&F pmf at k = 1024 (goal < 0.1 s) and k = 10⁵ (goal ≤ 60 s, < 1 GB).
"""

import timeit

import numpy as np

from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms import selection_sampling

K, N = 100, 200_000
SCORES = np.array([(37 * i) % 101 for i in range(K)], dtype=float)


def test_a1_sampling_against_raw_exponential(benchmark):
    rng = np.random.default_rng(0)
    raw = min(timeit.repeat(lambda: rng.exponential(2.0, size=(N, K)), number=1, repeat=7))
    benchmark(selection_sampling.sample_report_noisy_max, SCORES, 1.0, 1.0, N, rng)
    benchmark.extra_info["raw_exponential_seconds"] = raw
    benchmark.extra_info["ratio_to_raw_exponential"] = benchmark.stats.stats.min / raw


def test_pf_pmf_k1024(benchmark):
    scores = np.random.default_rng(1).integers(0, 2000, size=1024).astype(float)
    sel.permute_and_flip_pmf(scores, 0.04)
    benchmark(sel.permute_and_flip_pmf, scores, 0.04)
    benchmark.extra_info["seconds_min"] = benchmark.stats.stats.min


def test_rnm_laplace_pmf_k1024(benchmark):
    scores = np.random.default_rng(1).integers(0, 2000, size=1024).astype(float)
    benchmark.pedantic(sel.report_noisy_max_laplace_pmf, args=(scores, 0.04), rounds=3)


def test_pf_pmf_k100000(benchmark):
    """Goal (issue 16): the exact P&F pmf at k = 10⁵ in ≤ 60 s and < 1 GB. The first round pays for
    the 50,002-node Gauss–Legendre rule (Newton on the recurrence); peak RSS goes to extra_info."""
    import resource

    scores = np.random.default_rng(2).normal(0, 50, 100_000)
    benchmark.pedantic(sel.permute_and_flip_pmf, args=(scores, 1.0), rounds=1, iterations=1)
    benchmark.extra_info["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
