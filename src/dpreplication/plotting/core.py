"""Deterministic figure output: committed style, no volatile PNG metadata."""

from __future__ import annotations

import os
import textwrap
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


def _parameter_value(value) -> str | None:
    """Return a setting as short text, or None where it does not fit a figure's title line.

    What fits: numbers, short strings, short lists (a long numeric grid as its range and length),
    and flat mappings.
    """
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return value if len(value) <= 24 else None
    if isinstance(value, list | tuple) and value:
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            shown = [_parameter_value(v) for v in value]
            return ", ".join(shown) if len(value) <= 4 else f"{shown[0]}…{shown[-1]} ({len(value)} values)"
        if all(isinstance(v, str) for v in value) and len(", ".join(value)) <= 40:
            return ", ".join(value)
        return None
    if isinstance(value, dict) and 0 < len(value) <= 4:
        parts = [(key, _parameter_value(v)) for key, v in value.items()]
        if all(text is not None and not isinstance(value[key], list | dict) for key, text in parts):
            return ", ".join(f"{key} {text}" for key, text in parts)
    return None


def parameter_line(settings: dict | None, *, seed: int | None, profile: str, variant: str = "") -> str:
    """Return the parameters a figure was computed with, as one line.

    The line holds ``profile`` (and ``variant``), each setting that fits (:func:`_parameter_value`)
    as ``key=value``, and the seed. Long grids and nested sections are left to the provenance
    sidecar beside the PNG.
    """
    parts = [f"profile {profile}" + (f", variant {variant}" if variant else "")]
    for key, value in (settings or {}).items():
        text = _parameter_value(value)
        if text is not None:
            parts.append(f"{key}={text}")
    if seed is not None:
        parts.append(f"seed={seed}")
    return " · ".join(parts)


def stamp_parameters(figure, line: str) -> None:
    """Add ``line`` (see :func:`parameter_line`) under the figure's title, wrapped to its width.

    With it, a figure from a variant run can never be mistaken for the published one.
    """
    characters_per_line = max(40, int(figure.get_figwidth() * 17))
    text = textwrap.fill(line, characters_per_line, break_long_words=False, break_on_hyphens=False)
    title = figure.get_suptitle()
    figure.suptitle(f"{title}\n{text}" if title else text, fontsize=8 if title else 7)
