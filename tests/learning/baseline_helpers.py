"""Synthetic, seeded data and a Laplace goodness-of-fit test shared by this folder's tests of
PrivGene's baselines and reference fits (``test_models.py``, ``test_functional_mechanism.py``,
``test_objective_perturbation.py``, ``test_output_perturbation.py``,
``test_sample_and_aggregate.py``)."""

import numpy as np
from scipy import stats


def synthetic(n, d, seed, signal=1.0, noise=0.5):
    """Features uniform on [-1,1]^{d-1}, labels from a noisy linear rule: (X, y01, y_pm)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, d - 1))
    z = signal * (X @ rng.normal(size=d - 1)) + 0.3 + noise * rng.normal(size=n)
    y01 = (z > 0).astype(float)
    return X, y01, 2.0 * y01 - 1.0


def ks_laplace(samples, scale):
    return stats.kstest(samples, stats.laplace(scale=scale).cdf).pvalue
