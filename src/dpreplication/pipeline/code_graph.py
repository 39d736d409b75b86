"""The package's import graph: which package modules a file reaches through its imports.

Read from the source with :mod:`ast`, without importing anything. Imports are followed through the
subpackages' lazy exports (``_EXPORTS`` in their ``__init__``) to the module that defines a name.
The workflow reads each rule's code inputs from it (``script_code`` in ``workflow/rules/common.smk``),
so that editing a module reruns exactly the rules whose scripts reach it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


@cache
def module_file(dotted: str, package: Path = PACKAGE) -> Path | None:
    """Return the file of a dotted package module (a module or a package's ``__init__``), or None."""
    path = package.parent.joinpath(*dotted.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


@cache
def lazy_exports(init: Path) -> dict[str, str]:
    """Return ``_EXPORTS`` of a subpackage's ``__init__``: exported name -> defining submodule."""
    for node in ast.walk(ast.parse(init.read_text())):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_EXPORTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def _attribute(module: str, name: str, package: Path) -> str:
    """Return what ``module.name`` refers to: a submodule, a lazily exported function, or itself."""
    if module_file(f"{module}.{name}", package) is not None:
        return f"{module}.{name}"
    file = module_file(module, package)
    if file is not None and file.name == "__init__.py" and name in lazy_exports(file):
        return f"{module}.{lazy_exports(file)[name]}.{name}"
    return f"{module}.{name}"


def _is_module(dotted: str, package: Path) -> bool:
    return module_file(dotted, package) is not None


def _statements(tree: ast.Module):
    """Yield every statement of ``tree`` at any depth, never an expression.

    Function and class bodies, branches and handlers are followed: an import is a statement, and
    the expressions are most of the nodes ``ast.walk`` would visit.
    """
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, field, None) or ())


@cache
def imported_modules(path: Path, package: Path = PACKAGE) -> frozenset[str]:
    """Return the dotted names of the package modules ``path`` imports (anywhere in the file).

    A name imported from a subpackage is followed through its lazy exports to the defining module.
    """
    found = set()
    for node in _statements(ast.parse(Path(path).read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith(package.name)}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package.name):
            found.add(node.module)
            for alias in node.names:
                target = _attribute(node.module, alias.name, package)
                if _is_module(target, package):
                    found.add(target)
                elif _is_module(target.rpartition(".")[0], package):
                    found.add(target.rpartition(".")[0])
    return frozenset(found)


@cache
def import_closure(path: Path, package: Path = PACKAGE) -> frozenset[Path]:
    """Return every package source file that ``path`` reaches through imports (itself excluded)."""
    seen: set[Path] = set()
    stack = [Path(path)]
    while stack:
        for dotted in imported_modules(stack.pop(), package):
            target = module_file(dotted, package)
            if target is not None and target not in seen:
                seen.add(target)
                stack.append(target)
    return frozenset(seen)
