"""The room plan and the floors, enforced: which parts of the package may import which.

Rooms. Concept packages (the release recorder, mechanisms, accounting, learning, optimisation,
data, statistics and plotting) and the library helpers at the root never import the replications,
the scorecard or the workflow machinery. The replications compose the concepts and never import
the scorecard or :mod:`dpreplication.pipeline`; the scorecard judges tables and never imports the
replications or the pipeline. Only ``pipeline`` sees everything.

Floors, bottom to top (:data:`FLOORS`); a module imports only modules on its own floor or below,
at module level or inside a function, and no set of modules imports itself round (a cycle):

0. the root helpers: ``dpreplication`` itself, ``exports``, ``docstrings``, ``numerics``,
   ``seeding``, ``tables``, ``validation``;
1. what needs only the helpers: ``releases`` (the DP events as plain data, and the recorder the
   samplers call to record what they spend), ``data``, ``statistics``, ``plotting``;
2. ``mechanisms`` (they record through ``releases``), and ``oracles`` (other libraries' versions
   of them);
3. ``accounting`` (interprets the events: their privacy maps, the ledger's totals, RDP, the exact
   verifier of DaRRM) and ``optimisation`` (DaRRM's γ_opt, the optimal-noise LP: both built on the
   mechanisms, neither on the other);
4. ``learning`` (records through ``releases`` and ``accounting.ledger``, draws with the mechanisms);
5. ``replications`` and ``scorecard`` (the rooms above keep them apart);
6. ``pipeline``.
"""

import ast
from pathlib import Path

import pytest

from dpreplication.pipeline.code_graph import lazy_exports

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "dpreplication"
UPPER = ("replications", "scorecard", "pipeline")
FORBIDDEN = {
    "concept": set(UPPER),
    "replications": {"scorecard", "pipeline"},
    "scorecard": {"replications", "pipeline"},
    "pipeline": set(),
}


def room(module: Path) -> str:
    """The room of a source file: ``replications``, ``scorecard``, ``pipeline`` or ``concept``."""
    top = module.relative_to(PACKAGE).parts[0]
    return top if top in UPPER else "concept"


def imported_rooms(source: str) -> set[str]:
    """The upper rooms a module's source imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "dpreplication" and len(parts) > 1 and parts[1] in UPPER:
                found.add(parts[1])
    return found


def violations(files) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE)} ({room(path)}) imports {sorted(bad)}"
        for path, source in files
        if (bad := imported_rooms(source) & FORBIDDEN[room(path)])
    ]


def package_files():
    return [(path, path.read_text()) for path in sorted(PACKAGE.rglob("*.py"))]


def test_no_room_imports_a_room_above_it():
    assert violations(package_files()) == []


def test_root_holds_only_library_helpers():
    """Workflow-only modules live in pipeline/; the root keeps what the library itself uses."""
    assert sorted(path.stem for path in PACKAGE.glob("*.py")) == sorted(
        ["__init__", "docstrings", "exports", "numerics", "oracles", "seeding", "tables", "validation"]
    )


@pytest.mark.parametrize(
    ("module", "planted"),
    [
        ("mechanisms/selection.py", "from dpreplication.pipeline.jobs import publish\n"),
        ("learning/genetic.py", "import dpreplication.replications.privgene.methods\n"),
        ("accounting/rdp.py", "def later():\n    from dpreplication.scorecard import claims\n"),
        ("replications/darrm/analytic.py", "from dpreplication.scorecard.claims import Claim\n"),
        ("replications/privgene/comparison.py", "from dpreplication import pipeline\n"),
        ("scorecard/claims.py", "from dpreplication.replications.darrm import verified\n"),
    ],
)
def test_a_planted_upward_import_is_caught(module, planted):
    files = [(path, source + planted if path == PACKAGE / module else source) for path, source in package_files()]
    assert [line.split(" ")[0] for line in violations(files)] == [module]


# =========================================================================== floors

FLOORS = (
    ("helpers", ("__init__", "exports", "docstrings", "numerics", "seeding", "tables", "validation")),
    ("releases and what needs only the helpers", ("releases", "data", "statistics", "plotting")),
    ("mechanisms", ("mechanisms", "oracles")),
    ("accounting and optimisation", ("accounting", "optimisation")),
    ("learning", ("learning",)),
    ("replications and scorecard", ("replications", "scorecard")),
    ("pipeline", ("pipeline",)),
)
"""Bottom to top: (floor, the packages and root modules on it)."""
FLOOR = {part: level for level, (_, parts) in enumerate(FLOORS) for part in parts}


def module_name(path: Path) -> str:
    """``dpreplication.mechanisms.majority`` for ``mechanisms/majority.py``; a package by its ``__init__.py``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top(module: str) -> str:
    """The subpackage or root module a module belongs to (``__init__`` for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def floor(module: str) -> int:
    """The floor of a module: that of its subpackage or root module (:data:`FLOORS`)."""
    return FLOOR[top(module)]


def import_graph(files) -> dict[str, set[str]]:
    """Module → the package's modules it imports, at module level or inside a function, absolute or relative.

    ``from X import y`` imports ``X`` and ``X.y`` where that is a module, or the module that defines
    ``y`` where ``X`` exports it lazily (``_EXPORTS`` in its ``__init__``, read as the workflow's
    code graph reads it).
    """
    names = {module_name(path): path for path, _ in files}
    graph = {}
    for path, source in files:
        module = module_name(path)
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                anchor = package[: len(package) - node.level + 1] if node.level else []
                base = ".".join([*anchor, *([node.module] if node.module else [])])
                init = names.get(base)
                exports = lazy_exports(init) if init is not None and init.name == "__init__.py" else {}
                targets.add(base)
                targets.update(f"{base}.{exports.get(alias.name, alias.name)}" for alias in node.names)
        graph[module] = {target for target in targets if target in names and target != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def floor_violations(graph: dict[str, set[str]]) -> list[str]:
    """``module (floor) imports target (floor)`` for each import of a module on a higher floor."""
    return [
        f"{module} ({floor(module)}) imports {target} ({floor(target)})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if floor(target) > floor(module)
    ]


def planted(module: str, source: str):
    """The package's files with ``source`` appended to ``module`` (a path under the package)."""
    return [(path, text + source if path == PACKAGE / module else text) for path, text in package_files()]


def test_every_package_and_root_module_has_a_floor():
    assert {top(module) for module in import_graph(package_files())} == set(FLOOR)


def test_no_modules_import_each_other_round():
    assert cycles(import_graph(package_files())) == []


def test_no_module_imports_a_floor_above_its_own():
    assert floor_violations(import_graph(package_files())) == []


def test_the_graph_sees_function_level_relative_and_lazily_exported_imports():
    graph = import_graph(package_files())
    assert "dpreplication.accounting.privacy_verifier" in graph["dpreplication.accounting.events"]  # in a function
    source = "def later():\n    from ..releases import events\n    from . import ledger\n"
    source += "from dpreplication.mechanisms import sample_darrm\n"
    wanted = {
        "dpreplication.releases",
        "dpreplication.releases.events",
        "dpreplication.accounting.ledger",
        "dpreplication.mechanisms",
        "dpreplication.mechanisms.majority",
    }
    assert not wanted & graph["dpreplication.accounting.rdp"]
    assert wanted <= import_graph(planted("accounting/rdp.py", source))["dpreplication.accounting.rdp"]


DARRM_CYCLE = [
    "dpreplication.accounting.privacy_verifier",
    "dpreplication.mechanisms.feasible_region",  # it imports majority; the verifier imports both
    "dpreplication.mechanisms.majority",
]


@pytest.mark.parametrize(
    ("module", "source", "cycle"),
    [
        (
            "mechanisms/majority.py",
            "from dpreplication.accounting.privacy_verifier import verify_privacy\n",
            DARRM_CYCLE,
        ),
        (
            "mechanisms/majority.py",
            "def later():\n    from dpreplication.accounting import verify_privacy\n",
            DARRM_CYCLE,
        ),
        (
            "mechanisms/feasible_region.py",
            "def later():\n    from ..accounting.privacy_verifier import verify_privacy\n",
            ["dpreplication.accounting.privacy_verifier", "dpreplication.mechanisms.feasible_region"],
        ),
    ],
)
def test_a_planted_mechanisms_to_accounting_import_is_caught(module, source, cycle):
    """Module level or inside a function, absolute, through a lazy export or relative: a cycle and a floor broken."""
    graph = import_graph(planted(module, source))
    assert cycles(graph) == [cycle]
    assert {line.split(" ")[0] for line in floor_violations(graph)} == {module_name(PACKAGE / module)}
