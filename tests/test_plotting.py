"""Plotting: every series a table holds is drawn, or the figure refuses the table by name."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from dpreplication.plotting import curves, distributions


def legend_labels(ax) -> list[str]:
    return ax.get_legend_handles_labels()[1]


def test_every_selection_variant_of_the_dampening_trace_is_drawn():
    variants = ["EEM", "EM", "EEM-RNMExp", "EM-m10"]  # one more than the figure has line styles
    trace = pd.DataFrame(
        [
            {"dataset": "US", "task": "lr", "method": method, "iteration": i, "delta1_mean": 1.0, "delta2_mean": 2.0}
            | {"delta_used_mean": 1.0 + k}
            for k, method in enumerate(variants)
            for i in range(3)
        ]
    )
    labels = legend_labels(curves.dampening_against_iteration(trace).axes[0])
    assert [label for label in labels if label.startswith("Δ used")] == [f"Δ used ({v})" for v in variants]


def pmf_table(sampled: list[str], exact: list[str]) -> pd.DataFrame:
    rows = [
        {"epsilon": 1.0, "item": item, "series": series, "kind": "exact", "probability": 0.25, "n": np.nan}
        for series in ["P&F = RNM-Exp", *exact]
        for item in range(4)
    ]
    rows += [
        {"epsilon": 1.0, "item": item, "series": series, "kind": "sampled", "probability": 0.25, "n": 1000}
        | {"ci_low": 0.2, "ci_high": 0.3}
        for series in sampled
        for item in range(4)
    ]
    return pd.DataFrame(rows)


def test_every_sampled_series_of_the_pmf_bars_is_drawn():
    sampled = [f"algorithm {i}" for i in range(8)]  # more than the figure has markers
    labels = legend_labels(distributions.pmf_bars(pmf_table(sampled, ["RNM-Laplace"])).axes[0])
    assert [label for label in labels if "(n=" in label] == [f"{s} (n=1,000)" for s in sampled]
    assert "RNM-Laplace (exact)" in labels


def test_an_exact_series_the_pmf_bars_cannot_place_is_refused_by_name():
    with pytest.raises(ValueError, match="Gaussian"):
        distributions.pmf_bars(pmf_table(["A1"], ["RNM-Laplace", "RNM-Gaussian"]))
