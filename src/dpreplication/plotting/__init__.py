"""Plotting: every function takes a tidy DataFrame and returns a Figure.

Figures carry no computation: what they show is exactly the CSV saved beside them.
"""

from dpreplication.plotting.core import new_figure, parameter_line, save_png, stamp_parameters, use_style

__all__ = ["new_figure", "parameter_line", "save_png", "stamp_parameters", "use_style"]
