"""Evaluation protocol: repeated k-fold cross-validation and mean ± 95 % CI aggregation.

Method-agnostic (PrivGene spec §4): one *job* is (dataset, task, method, ε, repetition);
it evaluates one method on every fold of one repetition and returns one row per fold
(and per extra key the method reports, e.g. the iteration of a trace). The folds of a
repetition come from a random permutation seeded by (dataset, repetition) only, so every
method and every ε of that repetition sees the same splits and comparisons are paired.
Each (fold, method, ε, …) gets its own generator from :func:`dpreplication.seeding.generator`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


def cross_validate(
    features: np.ndarray,
    labels: np.ndarray | None,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    method: Callable[..., dict | pd.DataFrame],
    rng_for_fold: Callable[[int], np.random.Generator],
    use_folds: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Evaluate ``method`` on the chosen folds; one row (or several) per fold.

    ``method(train_x, train_y, test_x, test_y, rng)`` returns a dict of scalars (one
    row) or a DataFrame (several rows, e.g. one per iteration). Columns ``fold``,
    ``n_train`` and ``n_test`` are added. ``use_folds`` selects fold numbers (default all).
    """
    frames = []
    for fold in range(len(folds)) if use_folds is None else use_folds:
        train, test = folds[fold]
        result = method(
            features[train],
            None if labels is None else labels[train],
            features[test],
            None if labels is None else labels[test],
            rng_for_fold(fold),
        )
        frame = pd.DataFrame([result]) if isinstance(result, dict) else result.reset_index(drop=True)
        frame.insert(0, "fold", fold)
        frame.insert(1, "n_train", len(train))
        frame.insert(2, "n_test", len(test))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


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
