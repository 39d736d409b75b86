"""One look per PrivGene method (colour, marker, line style), shared by every PrivGene figure.

PrivGene's own selection (EEM) shares PrivGene's colour; a run at another number of iterations
(``"EEM, r=40"``) keeps its method's colour, dotted. The two flat references are black
(NoPrivacy, dashed) and grey (Majority, dash-dotted), so that no method is paired with a reference
by hue. Colours are the Okabe–Ito palette of the committed style, with two of Paul Tol's muted
colours for the selection variants of Figs 6–7.
"""

from __future__ import annotations

import itertools

PRIVGENE_STYLES: dict[str, dict] = {
    "PrivGene": {"color": "#0072B2", "marker": "o", "ls": "-"},
    "PrivateERM": {"color": "#D55E00", "marker": "s", "ls": "-"},
    "FM": {"color": "#009E73", "marker": "^", "ls": "-"},
    "PrivateSVM": {"color": "#E69F00", "marker": "D", "ls": "-"},
    "GUPT": {"color": "#CC79A7", "marker": "v", "ls": "-"},
    "EM": {"color": "#882255", "marker": "s", "ls": "-"},
    "EEM-RNMExp": {"color": "#999933", "marker": "X", "ls": (0, (4, 2))},
    "NoPrivacy": {"color": "#000000", "marker": "", "ls": "--"},
    "Majority": {"color": "#7F7F7F", "marker": "", "ls": (0, (6, 2, 1.5, 2))},
}
"""Method -> ``color``, ``marker`` and ``ls`` (matplotlib keywords): the one mapping of PrivGene's figures."""
PRIVGENE_STYLES["EEM"] = PRIVGENE_STYLES["PrivGene"]  # PrivGene's selection mechanism is EEM

REFERENCE_METHODS = ("NoPrivacy", "Majority")
"""The flat references: drawn thin and above the methods, so that a method at their level leaves them visible."""

_SPARE_COLOURS = ("#332288", "#44AA99", "#DDCC77", "#CC6677", "#88CCEE", "#AA4499")
_SPARE_MARKERS = ("P", "h", "<", ">", "*", "d")


def privgene_style(method: str) -> dict:
    """Return the style of a PrivGene method: ``color``, ``marker`` and ``ls``.

    A method at another number of iterations (``"<method>, r=<r>"``) keeps its method's colour
    and is dotted, without markers; a method outside :data:`PRIVGENE_STYLES` gets a spare colour
    and marker that depend on its name only.

    Parameters
    ----------
    method : str
        The method as the figure's table names it.
    """
    base, _, iterations = method.partition(", r=")
    if base in PRIVGENE_STYLES:
        style = dict(PRIVGENE_STYLES[base])
        if iterations:
            style.update(marker="", ls=(0, (1, 1.2)))
        return style
    index = sum(map(ord, method))  # stable across runs, unlike hash()
    return {
        "color": _SPARE_COLOURS[index % len(_SPARE_COLOURS)],
        "marker": _SPARE_MARKERS[index % len(_SPARE_MARKERS)],
        "ls": "-",
    }


def shades(colour: str, count: int) -> list[tuple[float, float, float]]:
    """Return ``count`` shades of ``colour``, from the colour itself towards white (to 30 % of it).

    Parameters
    ----------
    colour : str
        A matplotlib colour.
    count : int
        How many shades.
    """
    from matplotlib.colors import to_rgb

    rgb = to_rgb(colour)
    weights = [1.0] if count == 1 else [1.0 - 0.7 * i / (count - 1) for i in range(count)]
    return [tuple(w * c + (1.0 - w) for c in rgb) for w in weights]


HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo")
"""Bar hatches, reused in turn, where bars of one colour's shades must stay apart in grey print."""


def cycle_hatches():
    """Return an endless iterator over :data:`HATCHES`."""
    return itertools.cycle(HATCHES)
