"""The aggregators' accuracy gaps over teacher-seed replicates, with Student-t intervals.

A replicate is one pair of private and non-private teacher ensembles trained with independent
seeds; its expected accuracies are exact over the query pool
(:func:`~dpreplication.replications.darrm.prediction.seed_spread_table`), so the only randomness
left in a gap such as DaRRM_Sub − GNMax is the teachers' draw. The scorecard judges the order and
improvement claims of §6.2 on the mean gap over the ``S`` replicates and its 95 % Student-t interval
(``t_{0.975, S−1} · sd / √S``, :func:`~dpreplication.statistics.intervals.t_bounds`): a verdict
that no single seed can decide.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.replications.darrm.prediction import ALL_REPLICATES
from dpreplication.statistics.intervals import ONE_SIDED_LEVEL, t_bounds

GAPS = (("sub", "gnmax"), ("opt", "sub"), ("opt", "gnmax"))
"""The paired gaps ``<a>_minus_<b>`` of §6.2's order and improvement claims."""


def gap_columns() -> list[str]:
    """Return the columns :func:`with_seed_gaps` adds: each gap, its interval bounds and its runs."""
    names = [f"{a}_minus_{b}" for a, b in GAPS]
    return [f"{name}{suffix}" for name in names for suffix in ("", "_ci_low", "_ci_high", "_runs")]


def with_seed_gaps(table: pd.DataFrame) -> pd.DataFrame:
    """Return the seed-spread ``table`` with each gap of :data:`GAPS` per replicate and over them.

    A replicate's row gets ``<a>_expected − <b>_expected``; the row ``replicate = "all"`` of each
    (dataset, m) gets the mean of its replicates' gaps (paired: one pair of ensembles per
    replicate), the 95 % Student-t interval over them in ``_ci_low``/``_ci_high`` (each side
    misses at :data:`~dpreplication.statistics.intervals.ONE_SIDED_LEVEL`; NaN with one replicate)
    and their number in ``_runs``. A (dataset, m) without data keeps NaN.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~dpreplication.replications.darrm.prediction.seed_spread_table`'s table.
    """
    table = table.copy()
    per_seed = table.replicate != ALL_REPLICATES
    for a, b in GAPS:
        name = f"{a}_minus_{b}"
        table[name] = np.where(per_seed, table[f"{a}_expected"] - table[f"{b}_expected"], np.nan)
        for suffix in ("_ci_low", "_ci_high", "_runs"):
            table[name + suffix] = np.nan
    for (dataset, m), group in table[per_seed].groupby(["dataset", "m"], sort=False):
        summary = (table.dataset == dataset) & (table.m == m) & ~per_seed
        for a, b in GAPS:
            name = f"{a}_minus_{b}"
            gaps = group[name].to_numpy(dtype=float)
            mean, runs = gaps.mean(), gaps.size
            se = gaps.std(ddof=1) / np.sqrt(runs) if runs > 1 else np.nan
            low, high = t_bounds(mean, se, runs, ONE_SIDED_LEVEL)
            table.loc[summary, [name, f"{name}_ci_low", f"{name}_ci_high", f"{name}_runs"]] = [mean, low, high, runs]
    return table
