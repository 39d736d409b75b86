"""Evaluation protocol: repeated k-fold splits and mean ± 95 % CI aggregation (PrivGene spec §4).

The folds of a repetition come from a random permutation seeded by (dataset, repetition) only,
so every method and every ε of that repetition sees the same splits and comparisons are paired.
The jobs that run methods on them are the replications' (e.g.
:func:`dpreplication.replications.privgene.jobs.run_job`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpreplication import seeding

SUMMARY_COLUMNS = ["mean", "std", "sem", "ci_low", "ci_high", "runs"]


def fold_indices(n: int, n_folds: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train, test)`` index pairs of a ``n_folds``-fold split of a random permutation of ``0..n-1``.

    Test folds are the ``n_folds`` nearly equal consecutive blocks of the permutation
    (sizes differ by at most one); each train set is the rest, sorted.
    """
    if not 2 <= n_folds <= n:
        raise ValueError(f"need 2 ≤ n_folds ≤ n, got n_folds={n_folds}, n={n}")
    blocks = np.array_split(rng.permutation(n), n_folds)
    return [(np.sort(np.concatenate(blocks[:i] + blocks[i + 1 :])), np.sort(test)) for i, test in enumerate(blocks)]


def repetition_folds(n: int, n_folds: int, seed: int, paper: str, dataset: str, repetition: int):
    """Return the shared folds of one repetition: seeded by ``(paper, "folds", dataset, repetition)`` only."""
    return fold_indices(n, n_folds, seeding.generator(seed, paper, "folds", dataset, repetition))


def mean_confidence_interval(values, confidence: float = 0.95) -> dict[str, float]:
    """Mean, std, standard error and the Student-t ``confidence`` interval of ``values``.

    With a single value the spread and the interval are NaN (not zero: nothing is known).
    """
    values = np.asarray(values, dtype=float)
    runs = values.size
    mean = float(values.mean()) if runs else np.nan
    if runs < 2:
        return {"mean": mean, "std": np.nan, "sem": np.nan, "ci_low": np.nan, "ci_high": np.nan, "runs": runs}
    std = float(values.std(ddof=1))
    sem = std / np.sqrt(runs)
    from scipy import stats  # lazy: the jobs that only evaluate folds never load scipy.stats

    half = float(stats.t.ppf(0.5 + confidence / 2, runs - 1)) * sem
    return {"mean": mean, "std": std, "sem": sem, "ci_low": mean - half, "ci_high": mean + half, "runs": runs}


def summarise(frame: pd.DataFrame, by: Sequence[str], value: str = "error", confidence: float = 0.95) -> pd.DataFrame:
    """Per group of ``by``: :func:`mean_confidence_interval` of ``value`` over runs (folds × repetitions)."""
    rows = [
        {
            **dict(zip(by, key if isinstance(key, tuple) else (key,))),
            **mean_confidence_interval(group[value], confidence),
        }
        for key, group in frame.groupby(list(by), sort=False)
    ]
    return pd.DataFrame(rows, columns=[*by, *SUMMARY_COLUMNS])
