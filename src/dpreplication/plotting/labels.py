"""What every figure writes in the same way: numbers, its title and its panels' titles.

Numbers are fixed point or mathtext powers of ten, never e-notation (:func:`number`); a figure
has one title (:func:`figure_title`), which starts with the spec's figure id where the figure
reproduces one (``"Fig. 3: …"``, ``"F2: …"``); a figure of several panels letters their titles
``"(a) …"``, ``"(b) …"`` in reading order (:func:`panel_title`), and a single panel has none.
"""

from __future__ import annotations

import math

LETTERS = "abcdefghijklmnopqrstuvwxyz"
"""The panel letters, in reading order."""


def number(value: float, digits: int = 3, *, in_math: bool = False, keep_zeros: bool = False) -> str:
    r"""Return ``value`` as a figure writes a number: fixed point, or a mathtext power of ten.

    ``0`` is ``"0"``. A value that rounds to an exact power of ten ``10^k`` with ``k <= -2`` is
    ``"$10^{k}$"`` (a parameter such as δ; not where ``keep_zeros``); any other value below
    ``10^{-3}`` in magnitude is ``"$a\times10^{k}$"``, with ``a`` of ``digits`` significant digits.
    Every other value is fixed point, rounded to ``digits`` significant digits (the integer part
    is never rounded away: 12345 stays 12345): ``0.131``, ``0.0376``, ``2.9``, ``10``. Trailing
    zeros are dropped (``0.05``, not ``0.0500``), unless ``keep_zeros``: then every measured value
    shows all its ``digits`` (``0.0430``, ``$1.00\times10^{-4}$``). Never e-notation (``1e-05``),
    which inside ``$…$`` would read as the subtraction "1e − 05".

    Parameters
    ----------
    value : float
        A finite number.
    digits : int
        Significant digits kept, at least 1.
    in_math : bool
        Whether the number goes inside a mathtext string (``rf"$\Delta={…}$"``): then a power of
        ten comes without its ``$…$``.
    keep_zeros : bool
        Whether to keep trailing zeros, for a measured value (a bar's height), whose label then
        shows ``digits`` significant digits whatever they are.

    Returns
    -------
    str
        The label: ``"0.05"``, ``"1"``, ``"$10^{-6}$"``, ``"$3\times10^{-4}$"`` (without the ``$``
        where ``in_math``).

    Examples
    --------
    >>> number(1e-6), number(0.000312, 2), number(0.13107), number(0.1), number(1e-5, in_math=True)
    ('$10^{-6}$', '$3.1\\times10^{-4}$', '0.131', '0.1', '10^{-5}')
    >>> number(0.04305), number(0.04305, keep_zeros=True), number(0.0001, keep_zeros=True)
    ('0.043', '0.0430', '$1.00\\times10^{-4}$')
    """
    if not math.isfinite(value):
        raise ValueError(
            f"a figure writes finite numbers, got {value!r}: the table it draws holds a NaN or an infinity"
        )
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.{max(1, digits) - 1}e}".split("e")
    exponent = int(exponent)
    if not keep_zeros:
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    unit = mantissa.lstrip("-") == "1"
    if exponent < -3 or (unit and exponent <= -2):
        power = rf"10^{{{exponent}}}"
        text = (f"-{power}" if mantissa.startswith("-") else power) if unit else rf"{mantissa}\times{power}"
        return text if in_math else f"${text}$"
    decimals = max(0, max(1, digits) - 1 - exponent)
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text and not keep_zeros else text


def figure_title(figure, text: str):
    """Give ``figure`` its one title, ``text``, in the style's title size (``axes.titlesize``).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    text : str
        The title: the spec's figure id first where the figure reproduces one (``"F2: …"``).

    Returns
    -------
    matplotlib.text.Text
        The title (``figure.suptitle``).
    """
    from matplotlib import rcParams

    return figure.suptitle(text, fontsize=rcParams["axes.titlesize"])


def panel_title(ax, index: int, text: str):
    """Title ``ax``, the figure's panel number ``index`` (from 0, in reading order), ``"(<letter>) <text>"``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel.
    index : int
        Its place in reading order, from 0: ``"(a)"`` for 0.
    text : str
        What the title says after the letter.

    Returns
    -------
    matplotlib.text.Text
        The title.
    """
    return ax.set_title(f"({LETTERS[index]}) {text}")
