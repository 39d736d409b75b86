"""Deterministic figure output: committed style, a PNG and a vector PDF with no volatile metadata."""

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
    """Return a styled figure and its axes grid, ``(figure, axes)`` with ``axes`` always 2-D."""
    use_style()
    return plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, layout="constrained", **kwargs)


def save_png(figure, path: str | Path) -> Path:
    """Save ``figure`` as a PNG whose bytes depend only on its content, then close it."""
    figure.savefig(path, format="png", metadata={"Software": None})
    plt.close(figure)
    return Path(path)


def save_figure(figure, png: str | Path, pdf: str | Path) -> tuple[Path, Path]:
    """Save ``figure`` as a PNG (for the screen) and a vector PDF (for a paper), then close it.

    Neither file's bytes depend on when or where it was written: the PNG has no software tag and
    the PDF no creator, producer or date (its fonts are embedded as TrueType, ``pdf.fonttype: 42``
    in the committed style, so that its text stays text).
    """
    figure.savefig(pdf, format="pdf", metadata={"Creator": None, "Producer": None, "CreationDate": None})
    return save_png(figure, png), Path(pdf)


def published_figure(function: str, tables, sidecar: str | Path):
    """Return a published figure as its drawing rule draws it: ``function`` on its ``tables``.

    ``function`` is ``"module.function"`` of this package, called with the CSV ``tables`` read back
    (in order) and the keyword arguments its computing job stored as ``drawing`` in ``sidecar``.
    """
    import json
    from importlib import import_module

    import pandas as pd

    module, name = function.rsplit(".", 1)
    drawing_function = getattr(import_module(f"dpreplication.plotting.{module}"), name)
    arguments = json.loads(Path(sidecar).read_text()).get("drawing", {})
    return drawing_function(*(pd.read_csv(table) for table in tables), **arguments)


def draw(function: str, tables, sidecar: str | Path, png: str | Path, pdf: str | Path) -> tuple[Path, Path]:
    """Draw a published figure (:func:`published_figure`) and save it to ``png`` and ``pdf``."""
    return save_figure(published_figure(function, tables, sidecar), png, pdf)
