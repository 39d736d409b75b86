"""Numpydoc entries written once and put into docstrings at import, as diffprivlib's ``copy_docstring``.

Sibling functions that take the same parameters document them in one place: the module writes the
entries as a numpydoc block, ``ENTRIES = parameter_entries('''...''')``, and each docstring names
the entries it uses on a line of their own, ``{scores, epsilon, sensitivity}``. The decorator
:func:`shared_parameters` replaces that line by the entries, indented as the line was, when the
module is imported; ``help()``, doctests and the docstring contract of the tests read the whole
text, and the API pages read it through ``docs/griffe_shared_docstrings.py``.

Only a line that holds nothing but ``{name}`` or ``{name, name, ...}`` is a placeholder: braces
inside a sentence or a type (``{"laplace", "exponential"}``) are left alone. An entry may be a
whole section (say a ``Returns`` section that siblings share), written as a plain mapping.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

T = TypeVar("T")

PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{(?P<names>\w+(?:, \w+)*)\}[ \t]*$", re.MULTILINE)
"""A docstring line holding only ``{name}`` or ``{name, name, ...}``: the entries put in its place."""

_ENTRY_NAME = re.compile(r"\*{0,2}(\w+)")


def parameter_entries(text: str) -> dict[str, str]:
    """Split a block of numpydoc entries into ``{name: entry}``, in the order written.

    Parameters
    ----------
    text : str
        Entries as in a ``Parameters`` section (any common indentation): each starts at a line
        ``name : type`` and holds the indented description lines below it.

    Returns
    -------
    dict of str to str
        The entry of each name (``*args`` and ``**kwargs`` under ``args`` and ``kwargs``), dedented.

    Raises
    ------
    ValueError
        If the text does not start with an entry line, or names a parameter twice.
    """
    entries: dict[str, list[str]] = {}
    lines = None
    for line in inspect.cleandoc(text).splitlines():
        if line and not line[0].isspace():
            match = _ENTRY_NAME.match(line)
            if match is None or match[1] in entries:
                raise ValueError(f"not a new parameter entry: {line!r}")
            lines = entries[match[1]] = [line]
        elif lines is None:
            raise ValueError(f"text must start with a 'name : type' line, got {line!r}")
        else:
            lines.append(line)
    return {name: "\n".join(lines).rstrip() for name, lines in entries.items()}


def substitute(doc: str, entries: Mapping[str, str], owner: str = "docstring") -> str:
    """Replace each placeholder line of ``doc`` by the named entries, indented as the line was.

    Parameters
    ----------
    doc : str
        A docstring with placeholder lines (:data:`PLACEHOLDER`).
    entries : mapping of str to str
        The entry text of each name; its common indentation and its blank first and last lines go.
    owner : str
        What ``doc`` documents, for the error message.

    Returns
    -------
    str
        ``doc`` with every placeholder line replaced; unchanged if it has none.

    Raises
    ------
    ValueError
        If a placeholder names an entry that ``entries`` does not hold.
    """

    def fill(match: re.Match) -> str:
        names = match["names"].split(", ")
        unknown = [name for name in names if name not in entries]
        if unknown:
            raise ValueError(f"{owner}: no shared docstring entry {unknown} (known: {sorted(entries)})")
        blocks = (textwrap.dedent(entries[name]).strip("\n").rstrip() for name in names)
        return "\n".join(textwrap.indent(block, match["indent"]) for block in blocks)

    return PLACEHOLDER.sub(fill, doc)


def shared_parameters(*entries: Mapping[str, str]) -> Callable[[T], T]:
    """Decorate a function or class: put the shared entries into its docstring's placeholder lines.

    Parameters
    ----------
    *entries : mapping of str to str
        Entries by name, e.g. from :func:`parameter_entries`; a name may stand in several only
        with the same text.

    Returns
    -------
    callable
        The decorator; it returns the object itself with its ``__doc__`` completed (left as is
        when Python runs with ``-OO`` and there is no docstring).

    Raises
    ------
    ValueError
        If two mappings give one name different texts, a placeholder names an unknown entry, or the
        docstring has no placeholder (the decorator would do nothing).
    """
    merged: dict[str, str] = {}
    for mapping in entries:
        for name, text in mapping.items():
            if merged.setdefault(name, text) != text:
                raise ValueError(f"two different shared docstring entries named {name!r}")

    def decorate(obj: T) -> T:
        doc = obj.__doc__
        if doc is None:
            return obj
        owner = f"{obj.__module__}.{obj.__qualname__}"
        filled = substitute(doc, merged, owner)
        if filled == doc:
            raise ValueError(f"{owner}: the docstring has no placeholder line such as '{{epsilon}}'")
        obj.__doc__ = filled
        return obj

    return decorate
