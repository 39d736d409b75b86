"""The room plan, enforced: which parts of the package may import which.

Concept packages (the mechanisms, accounting, learning, optimisation, data, statistics and
plotting) and the library helpers at the root are the bottom floor: they never import the
replications, the scorecard or the workflow machinery. The replications compose the concepts and
never import the scorecard or :mod:`dpreplication.pipeline`; the scorecard judges tables and
never imports the replications or the pipeline. Only ``pipeline`` sees everything.
"""

import ast
from pathlib import Path

import pytest

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
