"""The plotting checks find what they look for: a legend over data, and nothing where there is none."""

from __future__ import annotations

import matplotlib.pyplot as plt

from dpreplication.plotting.checks import legend_overlaps
from dpreplication.plotting.core import new_figure


def test_a_legend_planted_over_data_is_reported():
    figure, axes = new_figure()
    ax = axes[0][0]
    ax.plot([0.0, 1.0], [0.0, 1.0], "o-", label="diagonal")
    ax.plot([0.0, 1.0], [0.95, 0.95], label="ceiling")
    ax.bar([0.5], [0.9], width=0.2, label="bar")
    ax.scatter([0.98], [0.5], label="points")
    ax.set_title("planted")
    ax.legend(loc="upper right")
    found = legend_overlaps(figure)
    plt.close(figure)
    assert any(line.startswith("planted: diagonal") for line in found)  # (1, 1) is under the legend
    assert any(line.startswith("planted: ceiling") for line in found)  # so is (1, 0.95)
    assert not any("bar" in line for line in found)  # the bar's top, at x = 0.4…0.6, is clear of it


def test_a_legend_beside_the_data_is_not_reported():
    figure, axes = new_figure()
    ax = axes[0][0]
    ax.plot([0.0, 1.0], [0.0, 1.0], "o-", label="diagonal")
    figure.legend(loc="outside lower center")
    assert legend_overlaps(figure) == []
    plt.close(figure)
