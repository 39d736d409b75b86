"""The package's code read as a graph: which modules a file imports, which functions a function uses.

Both graphs are read from the source with :mod:`ast`, without importing anything. Imports are
followed through the subpackages' lazy exports (``_EXPORTS`` in their ``__init__``) to the module
that defines a name. A call-graph edge is any reference to a package function or class: a call, or
a function passed as a value (e.g. a method in a dispatch table). Used by the
figure map (:mod:`dpreplication.pipeline.figure_map`) and by the test that each rule's code inputs cover
its script's imports.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

CONCEPTS = ("mechanisms", "accounting", "optimisation", "learning", "statistics")
"""Subpackages whose functions are mechanisms, learners, optimisers, accountants or tests (the rest
of the package orchestrates, stores or draws)."""
PACKAGE = Path(__file__).resolve().parents[1]


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``dpreplication.<sub>.<module>`` of a file of the package (``__init__`` names its package)."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


def _imports(tree: ast.Module, package: Path) -> dict[str, str]:
    """Local name -> dotted package name (module or function), from every import in ``tree``."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package.name):
            for alias in node.names:
                names[alias.asname or alias.name] = _attribute(node.module, alias.name, package)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(package.name) and alias.asname:
                    names[alias.asname] = alias.name
    return names


def imported_modules(path: Path, package: Path = PACKAGE) -> set[str]:
    """Return the dotted names of the package modules ``path`` imports (anywhere in the file).

    A name imported from a subpackage is followed through its lazy exports to the defining module.
    """
    found = set()
    for node in ast.walk(ast.parse(Path(path).read_text())):
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
    return found


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


def _references(nodes, module: str, local: set[str], imported: dict[str, str], package: Path) -> set[str]:
    """Dotted package names referenced in ``nodes``: local definitions, imported names, ``module.attr``."""
    found = set()
    for node in (n for root in nodes for n in ast.walk(root)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported:
            target = imported[node.value.id]
            if _is_module(target, package):
                found.add(_attribute(target, node.attr, package))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in local:
                found.add(f"{module}.{node.id}")
            elif node.id in imported and not _is_module(imported[node.id], package):
                found.add(imported[node.id])
    return found


def _definitions(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Module-level functions, classes and assigned names -> the nodes that define them."""
    definitions: dict[str, list[ast.AST]] = defaultdict(list)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[node.name].append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        definitions[name.id].append(node.value)
    return definitions


def call_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """``{dotted definition: dotted package names it references}`` over every module of ``package``."""
    graph: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        module = module_name(path, package)
        definitions = _definitions(tree)
        imported = _imports(tree, package)
        for name, nodes in definitions.items():
            graph[f"{module}.{name}"] = _references(nodes, module, set(definitions), imported, package) - {
                f"{module}.{name}"
            }
    return graph


@cache
def functions_and_classes(package: Path = PACKAGE) -> frozenset[str]:
    """Dotted names of the module-level functions and classes of ``package`` (not its values)."""
    return frozenset(
        {
            f"{module_name(path, package)}.{node.name}"
            for path in sorted(package.rglob("*.py"))
            for node in ast.parse(path.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }
    )


def script_references(script: Path, package: Path = PACKAGE) -> set[str]:
    """Dotted package names a workflow script references (its module-level code and functions)."""
    tree = ast.parse(Path(script).read_text())
    definitions = _definitions(tree)
    return _references([tree], "<script>", set(definitions), _imports(tree, package), package) - {
        f"<script>.{name}" for name in definitions
    }


def _concept(dotted: str, package: Path) -> bool:
    parts = dotted.split(".")
    return len(parts) > 2 and parts[0] == package.name and parts[1] in CONCEPTS


def mechanisms_reached(start: set[str], graph: dict[str, set[str]], package: Path = PACKAGE) -> set[str]:
    """Concept-package functions and classes reached from ``start`` without passing through another.

    A concept package's module-level value (a dispatch table such as ``EXACT_PMFS``) is passed
    through to the functions it holds. The workflow machinery (``pipeline``: publishing, sidecars)
    is not followed: what it calls is bookkeeping, not a figure's computation.
    """
    callables = functions_and_classes(package)
    reached, seen, frontier = set(), set(), list(start)
    while frontier:
        name = frontier.pop()
        if name in seen or name.startswith(f"{package.name}.pipeline."):
            continue
        seen.add(name)
        if _concept(name, package) and name in callables:
            reached.add(name)
            continue
        frontier += graph.get(name, ())
    return reached
