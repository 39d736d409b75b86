"""Deterministic figure output: committed style, no volatile PNG metadata."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = Path(__file__).with_name("matplotlibrc")


def use_style() -> None:
    """Apply the committed matplotlibrc (idempotent)."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    plt.rcdefaults()
    matplotlib.rc_file(STYLE)


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.0, **kwargs):
    """A styled figure and axes grid."""
    use_style()
    return plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, layout="constrained", **kwargs)


def save_png(figure, path: str | Path) -> Path:
    """Save ``figure`` as a PNG whose bytes depend only on its content, then close it."""
    figure.savefig(path, format="png", metadata={"Software": None})
    plt.close(figure)
    return Path(path)
