"""Griffe extension: the API pages show the docstrings that :mod:`dpreplication.docstrings` completes.

Griffe reads the source statically, where such a docstring still holds placeholder lines like
``{scores, epsilon, sensitivity}``. For just those objects this extension imports the object and
takes its runtime ``__doc__`` (griffe's recipe "inspecting specific objects"); everything else keeps
the static reading, which ``force_inspection`` would lose for the whole package (attribute
docstrings, the order of the source, the lazy exports of the concept packages).
"""

from __future__ import annotations

import inspect
from typing import Any

import griffe

from dpreplication.docstrings import PLACEHOLDER

logger = griffe.get_logger("griffe_shared_docstrings")


class SharedDocstrings(griffe.Extension):
    """Replace a docstring that has placeholder lines by the imported object's completed ``__doc__``."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Swap in the runtime docstring of ``obj`` if its source docstring names shared entries."""
        if obj.is_alias or obj.docstring is None or not PLACEHOLDER.search(obj.docstring.value):
            return
        doc = inspect.cleandoc(griffe.dynamic_import(obj.path).__doc__ or "")
        if not doc or PLACEHOLDER.search(doc):
            logger.warning(f"{obj.path}: placeholder lines left in the docstring (no @shared_parameters?)")
            return
        obj.docstring.value = doc
