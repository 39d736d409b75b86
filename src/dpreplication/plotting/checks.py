"""Checks of a drawn figure: what a reader could not see.

:func:`legend_overlaps` finds data points hidden under a legend, :func:`hidden_series` a legend
entry whose series other series cover, :func:`unexplained_markers` markers that neither a legend
nor the caption explains, :func:`small_texts` and :func:`e_notation_texts` texts below the
smallest size or in e-notation, :func:`title_problems` a break of the one titling convention.
"""

from __future__ import annotations

import re

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.lines import Line2D
from matplotlib.text import Text


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


MINIMUM_POINTS = 7.0
"""The smallest text size a figure may use: legible when a 6.4-inch figure goes into one column."""

E_NOTATION = re.compile(r"\d(?:\.\d+)?e[-+\u2212]?\d")
"""A number in e-notation (``1e-03``); figures write fixed point or mathtext powers of ten."""

PANEL_LETTER = re.compile(r"^\(([a-z])\) \S")


def _texts(figure):
    """Yield each visible, non-empty text of ``figure`` (titles, labels, ticks, annotations, legends)."""
    figure.canvas.draw()
    for text in figure.findobj(Text):
        if text.get_visible() and text.get_text().strip() and text.get_figure() is not None:
            yield text


def small_texts(figure, minimum: float = MINIMUM_POINTS) -> list[str]:
    """Return ``"<text> (<size> pt)"`` for each visible text of ``figure`` smaller than ``minimum`` points."""
    return sorted(
        {f"{t.get_text()[:30]!r} ({t.get_fontsize():g} pt)" for t in _texts(figure) if t.get_fontsize() < minimum}
    )


def e_notation_texts(figure) -> list[str]:
    """Return each visible text of ``figure`` that writes a number in e-notation (``1e-03``)."""
    return sorted({t.get_text() for t in _texts(figure) if E_NOTATION.search(t.get_text().replace("\n", " "))})


def main_panels(figure) -> list:
    """Return the visible panels of ``figure``: its axes that are neither colour bars nor insets."""
    return [
        ax
        for ax in figure.get_axes()
        if ax.get_visible() and ax.get_label() != "<colorbar>" and getattr(ax, "_colorbar", None) is None
    ]


def title_problems(figure) -> list[str]:
    """Return how ``figure`` breaks the titling convention, one line per problem.

    The convention: one figure title (``figure.suptitle``), which names the spec's figure first
    where the figure reproduces one (``"Fig. 3: …"``, ``"F2: …"``); a figure of several panels
    letters each panel's title ``"(a) …"``, ``"(b) …"`` in reading order; a single panel has no
    title of its own.
    """
    problems = []
    if not figure.get_suptitle().strip():
        problems.append("no figure title (figure.suptitle)")
    panels = main_panels(figure)
    titles = [" ".join(ax.get_title(loc) for loc in ("left", "center", "right")).strip() for ax in panels]
    if len(panels) == 1:
        if titles[0]:
            problems.append(f"a single panel titled {titles[0]!r}: the figure title says it")
        return problems
    for index, title in enumerate(titles):
        letter = PANEL_LETTER.match(title)
        if letter is None or letter.group(1) != "abcdefghijklmnopqrstuvwxyz"[index]:
            problems.append(f"panel {index + 1} titled {title!r}, not '({'abcdefghijklmnopqrstuvwxyz'[index]}) …'")
    return problems


def _legends(figure) -> list:
    """Return the visible legends of ``figure``: its panels' and its own."""
    legends = [ax.get_legend() for ax in figure.get_axes() if ax.get_legend() is not None] + list(figure.legends)
    return [legend for legend in legends if legend.get_visible()]


def _data_artists(figure) -> list:
    """Return the visible lines, collections and patches of ``figure``'s panels, insets included.

    Error bars' caps are left out: they mark an interval's ends, which the caption explains.
    """
    axes = [ax for panel in main_panels(figure) for ax in (panel, *panel.child_axes)]
    caps = {id(cap) for ax in axes for c in ax.containers if isinstance(c, ErrorbarContainer) for cap in c.lines[1]}
    artists = (a for ax in axes for a in (*ax.get_lines(), *ax.collections, *ax.patches))
    return [a for a in artists if a.get_visible() and id(a) not in caps]


VISIBLE_CHANGE = 48
"""A pixel changes for a reader when one of its channels moves by more than this (of 255): an
anti-aliased edge blended over another colour does not."""


def _render(figure) -> np.ndarray:
    """Return ``figure``'s pixels (RGB) as drawn now."""
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba())[..., :3].astype(np.int16)


def _changed(before: np.ndarray, after: np.ndarray) -> int:
    """Return how many pixels a reader sees change between two renders (:data:`VISIBLE_CHANGE`)."""
    return int(np.count_nonzero(np.abs(before - after).max(axis=-1) > VISIBLE_CHANGE))


def _showing(artists, visible: bool) -> None:
    for artist in artists:
        artist.set_visible(visible)


def hidden_series(figure, visible_share: float = 0.1, dpi: float = 50) -> list[str]:
    """Return the legend entries whose series a reader cannot see, one line each.

    An entry's series is every visible data artist of the figure's panels with its label. It is
    hidden when removing it changes fewer than ``visible_share`` of the pixels it paints with the
    panels' other data removed: the other series cover the rest. The figure is rendered at
    ``dpi``, its layout frozen, without its texts, legends and axes (a legend over data is
    :func:`legend_overlaps`' to find), and given them back.
    """
    legends = _legends(figure)
    labels = {text.get_text() for legend in legends for text in legend.get_texts()}
    artists = _data_artists(figure)
    texts = [text for text in figure.findobj(Text) if text.get_visible()]
    framed = [ax for ax in figure.get_axes() if ax.axison]
    own_dpi, own_layout = figure.get_dpi(), figure.get_layout_engine()
    figure.set_dpi(dpi)
    figure.canvas.draw()
    figure.set_layout_engine("none")  # the panels stay where they are when the texts go
    _showing([*texts, *legends], False)  # text is most of a render's time, and covers no series here
    for ax in framed:
        ax.set_axis_off()
    try:
        everything = _render(figure)
        _showing(artists, False)
        nothing = _render(figure)
        hidden = []
        for label in sorted(labels):
            series = [artist for artist in artists if artist.get_label() == label]
            if not series:
                continue
            _showing(series, True)
            painted = _changed(_render(figure), nothing)
            _showing(artists, True)
            _showing(series, False)
            seen = _changed(everything, _render(figure))
            _showing(artists, False)
            if painted and seen < visible_share * painted:
                hidden.append(f"{label}: {seen} of the {painted} pixels it paints show")
        return hidden
    finally:
        _showing([*artists, *texts, *legends], True)
        for ax in framed:
            ax.set_axis_on()
        figure.set_layout_engine(own_layout)
        figure.set_dpi(own_dpi)


KEY_ARTISTS = (Line2D, PathCollection)
"""What a legend key draws that can carry a marker."""


def _marker_style(artist) -> tuple[str, bool] | None:
    """Return ``(marker, hollow)`` of a line's or a scatter's markers, or None where it draws none."""
    if isinstance(artist, Line2D):
        marker = artist.get_marker()
        if marker in (None, "", " ", "None", "none") or not len(artist.get_xydata()):
            return None
        face = artist.get_markerfacecolor()
        return str(marker), artist.get_fillstyle() == "none" or (isinstance(face, str) and face.lower() == "none")
    if isinstance(artist, PathCollection) and len(artist.get_offsets()):
        faces = artist.get_facecolors()
        return f"path{len(artist.get_paths()[0].vertices) if artist.get_paths() else 0}", not len(faces) or bool(
            (np.asarray(faces)[:, 3] == 0).all()
        )
    return None


def unexplained_markers(figure, caption: str = "") -> list[str]:
    """Return each marker style of ``figure``'s data that neither a legend nor the ``caption`` explains.

    A marker style is the marker and whether it is hollow. It is explained when a legend key of
    the figure draws the same style (any line or scatter a key draws: an error bar's key draws
    its marker over its bar), or when ``caption`` (the figure's report caption) names
    it: the marker's name (``"triangle"``, ``"hollow"``, ``"dots"``) as :data:`MARKER_NAMES` lists.
    """
    keys = (key for legend in _legends(figure) for key in legend.findobj(lambda a: isinstance(a, KEY_ARTISTS)))
    legend_styles = {style for key in keys if (style := _marker_style(key))}
    used = {style for artist in _data_artists(figure) if (style := _marker_style(artist))}
    words = caption.lower()
    return sorted(
        f"{marker}{' (hollow)' if hollow else ''}"
        for marker, hollow in used - legend_styles
        if not any(name in words for name in MARKER_NAMES.get(marker, ())) or (hollow and "hollow" not in words)
    )


MARKER_NAMES = {
    "o": ("circle", "dot"),
    "v": ("triangle",),
    "^": ("triangle",),
    "s": ("square",),
    "D": ("diamond",),
    "x": ("cross",),
    "X": ("cross",),
    "*": ("star",),
    "|": ("tick", "bar"),
    "_": ("tick", "dash"),
    ".": ("dot", "point"),
}
"""Words a caption may use for a marker (matplotlib's code -> names)."""
