"""Tests of :mod:`dpreplication.learning.protocol`, PrivGene's evaluation protocol (spec §4): its
docstrings state that runs are summarised by their mean and a Student-t 95 % confidence interval
(NaN with one run), per group of a results table. That the folds of a repetition partition the
rows and are shared by every method is checked through a replication job in
``tests/papers/test_privgene.py``."""

import numpy as np
import pytest

from dpreplication.learning.protocol import mean_confidence_interval, summarise


def test_mean_confidence_interval():
    summary = mean_confidence_interval([1.0, 2.0, 3.0, 4.0])
    assert summary["mean"] == 2.5 and summary["runs"] == 4
    assert summary["ci_high"] - 2.5 == pytest.approx(3.182446305 * np.std([1, 2, 3, 4], ddof=1) / 2, rel=1e-8)
    assert np.isnan(mean_confidence_interval([1.0])["ci_low"])
    import pandas as pd

    table = summarise(pd.DataFrame({"g": ["a", "a", "b"], "error": [0.1, 0.3, 0.2]}), ["g"])
    assert list(table["mean"]) == pytest.approx([0.2, 0.2]) and list(table.runs) == [2, 1]
