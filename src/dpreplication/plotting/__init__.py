"""Plotting: every function takes tidy DataFrames and returns a Figure.

Figures carry no computation: what they show is exactly the CSVs saved beside them, which their
drawing rules (``workflow/rules/drawing.smk``) read back through :func:`draw`. The names load
matplotlib on first use, so that a drawing job starts (logging, input checks) before it pays for it.
"""

from dpreplication.exports import lazy_exports

_EXPORTS = {
    "draw": "core",
    "new_figure": "core",
    "published_figure": "core",
    "save_figure": "core",
    "save_png": "core",
    "use_style": "core",
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
