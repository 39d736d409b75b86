"""Griffe extension: the Sphinx roles of the docstrings become links on the API pages.

The docstrings cross-reference with Sphinx roles (``:func:`spending```, ``:class:`~pkg.mod.C```,
``:mod:``, ``:data:``, ``:meth:``, ``:attr:``, ``:exc:``), which the numpy-style renderer of
mkdocstrings prints as raw text. At build time, and only there (the source keeps its roles), this
extension rewrites each role as an mkdocs-autorefs cross-reference to the object it names:

* the shown text is the target as written, or its last component where it starts with ``~``
  (Sphinx's rule; a leading ``.`` is dropped from the text, ``!`` means "do not link");
* a target that is not fully qualified is looked up the way Python would see the name from the
  docstring's object: in the object itself (a class's methods), then in each enclosing scope, its
  module, the parent packages up to ``dpreplication``; last, the target as written. A concept
  package's lazy exports (``_EXPORTS`` in its ``__init__``) count as its members, and a re-export
  leads to the object it re-exports;
* a target found nowhere (the standard library, numpy, another package) stays code text.

The reference is the ``optional`` form that mkdocstrings' own templates write,
``<autoref identifier="..." optional>`text`</autoref>``: where the object is rendered on some page
(the member lists of ``docs/api/*.md``), it is a link; where it is not (a private helper, a module
left off the pages), autorefs prints the code text, with the full name as its tooltip, instead of
the broken link the plain ``[text][identifier]`` form would leave (and ``mkdocs build --strict``
would refuse).
"""

from __future__ import annotations

import ast
import re
from html import escape
from typing import Any

import griffe

logger = griffe.get_logger("griffe_sphinx_roles")

ROLE = re.compile(r":(?:py:)?(?P<role>func|class|meth|attr|mod|data|exc|obj|const):`(?P<content>[^`\n]+)`")
"""A Sphinx cross-reference role of the Python domain, ``:func:`target``` (``:py:func:`` too)."""

EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$", re.S)
"""Sphinx's ``:func:`shown text <target>``` form."""


def _lazy_exports(module: griffe.Object) -> dict[str, str]:
    """``{name: submodule}`` of a package's ``_EXPORTS`` (``dpreplication.exports.lazy_exports``)."""
    exports = module.members.get("_EXPORTS")
    if exports is None or exports.is_alias or not exports.is_attribute or exports.value is None:
        return {}
    try:
        value = ast.literal_eval(str(exports.value))
    except (SyntaxError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def find(path: str, modules: griffe.ModulesCollection) -> str | None:
    """Return the canonical path of the object ``path`` names in the loaded packages, or None.

    Follows aliases (re-exports) to the object they import and a package's lazy exports to the
    submodule that defines the name; a path through anything not loaded is None.
    """
    head, *rest = path.split(".")
    obj = modules.members.get(head)
    try:
        for part in rest:
            if obj is None:
                return None
            if part in obj.members:
                obj = obj.members[part]
            elif (submodule := _lazy_exports(obj).get(part)) is not None:
                obj = obj.members.get(submodule)
                obj = obj.members.get(part) if obj is not None else None
            else:
                return None
        if obj is None:
            return None
        return obj.final_target.path if obj.is_alias else obj.path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def resolve(target: str, scope: griffe.Object, modules: griffe.ModulesCollection) -> str | None:
    """Return the canonical path of ``target`` seen from ``scope``: its scopes outwards, then as written."""
    scopes = []
    while scope is not None:
        scopes.append(scope.path)
        scope = scope.parent
    for candidate in [f"{path}.{target}" for path in scopes] + [target]:
        if (found := find(candidate, modules)) is not None:
            return found
    return None


def reference(content: str, scope: griffe.Object, modules: griffe.ModulesCollection) -> str:
    """Return the Markdown of one role's content: an optional autorefs reference, or code text."""
    content = content.strip()
    if explicit := EXPLICIT_TITLE.match(content):
        text, target = explicit["title"], explicit["target"].strip()
    else:
        text = target = content
        text = text.lstrip(".!")
        if text.startswith("~"):
            text = text[1:].rsplit(".", 1)[-1]
    linked = not target.startswith("!")
    target = target.lstrip("!~").lstrip(".")
    if target.endswith("()"):
        target = target[:-2]
    code = f"`{text}`"
    identifier = resolve(target, scope, modules) if linked and target else None
    if identifier is None:
        logger.debug(f"{scope.path}: {content!r} names no loaded object; shown as code")
        return code
    return f'<autoref identifier="{escape(identifier)}" optional>{code}</autoref>'


def convert(text: str, scope: griffe.Object, modules: griffe.ModulesCollection) -> str:
    """``text`` with every Sphinx role replaced by :func:`reference`."""
    return ROLE.sub(lambda match: reference(match["content"], scope, modules), text)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every loaded docstring as autorefs cross-references.

    List it after ``docs/griffe_shared_docstrings.py`` in ``mkdocs.yml``: that extension swaps in
    the completed runtime docstring on the same event, and this one must read the swapped text.
    """

    def _convert(self, obj: griffe.Object, loader: griffe.GriffeLoader) -> None:
        if obj.is_alias or obj.docstring is None or ":" not in obj.docstring.value:
            return
        obj.docstring.value = convert(obj.docstring.value, obj, loader.modules_collection)

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Convert the roles of one object's docstring (every object but a package's root)."""
        self._convert(obj, loader)

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Convert the roles of a package root's docstring (``on_object`` sees only its members)."""
        self._convert(pkg, loader)
