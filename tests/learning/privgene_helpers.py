"""PrivGene's seeded synthetic data, shared by this folder's tests of the genetic algorithm, its
fitness functions and its reachable set and by ``tests/papers/test_privgene.py`` and
``tests/papers/test_privgene_ablations.py``: ``rng`` keeps the stream keys those tests were written
with, so they draw the same numbers wherever they live."""

import numpy as np

from dpreplication import seeding
from dpreplication.data.tabular import TabularData


def rng(*keys):
    return seeding.generator(20130622, "test_privgene", *keys)


def synthetic(n, d, seed, noise=0.3):
    """Linearly separable-ish data in [-1, 1]^d with 0/1 labels."""
    generator = rng("synthetic", seed)
    x = generator.uniform(-1, 1, size=(n, d))
    w = generator.normal(size=d)
    y = (x @ w + noise * generator.normal(size=n) > 0.2).astype(float)
    return x, y, w


def toy(n=1500, d=4, seed=0, name="toy"):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = (X @ np.arange(1, d + 1) + rng.normal(0, 1, n) > 0).astype(float)
    return TabularData(name, X, y, tuple(f"x{i}" for i in range(d)), "synthetic")
