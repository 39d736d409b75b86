"""Checks of a drawn figure: what a reader could not see.

:func:`legend_overlaps` finds data points hidden under a legend.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D


def _axes_name(ax, index: int) -> str:
    """Return the title of ``ax`` (centre, else left, else right), or ``axes <index>`` without one."""
    for loc in ("center", "left", "right"):
        title = ax.get_title(loc=loc).replace("\n", " ").strip()
        if title:
            return title
    return f"axes {index}"


def _artist_name(artist, kind: str, owners: dict) -> str:
    """Return the legend label of ``artist`` or of its container, or ``unlabelled <kind>`` without one.

    ``owners`` maps ``id`` of an artist to the label of the container (error bars, bars) it is part of.
    """
    for label in (str(artist.get_label() or ""), owners.get(id(artist), "")):
        if label and not label.startswith("_"):
            return label
    return f"unlabelled {kind}"


def _inside(points: np.ndarray, box) -> np.ndarray:
    """Return which display ``points`` lie in the bounding box ``box`` (edges included)."""
    x, y = points[:, 0], points[:, 1]
    return (x >= box.x0) & (x <= box.x1) & (y >= box.y0) & (y <= box.y1)


def _displayed(points: np.ndarray, ax, artist) -> np.ndarray:
    """Keep the finite display points that are drawn: inside the axes where ``artist`` is clipped to them."""
    points = np.asarray(points, float).reshape(-1, 2)
    points = points[np.isfinite(points).all(axis=1)]
    if artist.get_clip_on() and len(points):
        points = points[_inside(points, ax.get_window_extent().expanded(1.001, 1.001))]
    return points


def _data_points(ax, renderer):
    """Yield ``(name, display points)`` of each visible data artist of ``ax``.

    Lines give their vertices, scatter collections their offsets, bars their four corners and the
    middle of their top and bottom edges.
    """
    owners = {}
    for container in ax.containers:
        for child in container.get_children():
            owners.setdefault(id(child), str(container.get_label() or ""))
    for line in ax.get_lines():
        if isinstance(line, Line2D) and line.get_visible():
            points = line.get_transform().transform(np.asarray(line.get_xydata(), float))
            yield _artist_name(line, "line", owners), _displayed(points, ax, line)
    for collection in ax.collections:
        if isinstance(collection, PathCollection) and collection.get_visible():
            offsets = np.asarray(collection.get_offsets(), float)
            if len(offsets):
                points = collection.get_offset_transform().transform(offsets)
                yield _artist_name(collection, "scatter", owners), _displayed(points, ax, collection)
    for container in ax.containers:
        if not isinstance(container, BarContainer):
            continue
        corners = []
        for patch in container.patches:
            if patch.get_visible():
                box = patch.get_window_extent(renderer)
                middle = 0.5 * (box.x0 + box.x1)
                corners += [(box.x0, box.y0), (box.x1, box.y0), (box.x0, box.y1), (box.x1, box.y1)]
                corners += [(middle, box.y0), (middle, box.y1)]
        if corners and container.patches:
            yield _artist_name(container, "bars", owners), _displayed(corners, ax, container.patches[0])


def legend_overlaps(figure) -> list[str]:
    """Return the data points that lie under a legend, one line per legend and artist.

    The figure is drawn first (``figure.canvas.draw()``), so that every extent is final. An axes
    legend is checked against its own axes; a figure legend against every axes. A data point is
    a vertex of a line, an offset of a scatter collection, or a corner (or the middle of the top or
    bottom edge) of a bar, in display coordinates; a point outside the axes that its artist is
    clipped to is not drawn and not reported.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure to check.

    Returns
    -------
    list of str
        ``"<axes title>: <artist label> (<n> points under the legend)"`` for each artist with a point
        inside a legend's window extent; empty when no legend covers data.
    """
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    axes = [ax for ax in figure.get_axes() if ax.get_visible()]
    pairs = [(ax.get_legend(), [ax]) for ax in axes if ax.get_legend() is not None]
    pairs += [(legend, axes) for legend in figure.legends]
    found = []
    for legend, covered in pairs:
        if not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        for ax in covered:
            name = _axes_name(ax, axes.index(ax))
            for artist, points in _data_points(ax, renderer):
                hidden = int(np.count_nonzero(_inside(points, box)))
                if hidden:
                    found.append(f"{name}: {artist} ({hidden} points under the legend)")
    return found
