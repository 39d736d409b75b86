"""Seeding: streams named by keys, and one convention across the package and the rule scripts."""

import ast
from pathlib import Path

import numpy as np

from dpreplication.seeding import generator, seed_sequence

REPO = Path(__file__).resolve().parents[1]


def test_streams_depend_only_on_keys():
    a = generator(1, "paper", "figure", 1.0).random(3)
    b = generator(1, "paper", "figure", 1).random(3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, generator(1, "paper", "figure", 2.0).random(3))
    assert not np.array_equal(a, generator(2, "paper", "figure", 1.0).random(3))


def test_seed_sequence_is_spawned_from_the_root():
    assert seed_sequence(20210515, "x").entropy == 20210515


RANDOM_SOURCES = {"default_rng", "RandomState", "SeedSequence", "seed", "manual_seed", "PCG64"}
"""Calls that create or reseed a random source. Outside ``seeding.py`` only where a library's API
needs its own, fed a seed that :func:`dpreplication.seeding.generator` drew: torch's for the
DP-SGD teachers, diffprivlib's legacy ``RandomState`` in its adapter."""
ALLOWED = {
    ("seeding.py", "SeedSequence"),
    ("seeding.py", "PCG64"),
    ("learning/teachers.py", "manual_seed"),
    ("oracles.py", "RandomState"),
}


def random_sources(path: Path) -> set[str]:
    """Names in :data:`RANDOM_SOURCES` that ``path``'s code calls (docstring examples are not code)."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
            if name in RANDOM_SOURCES:
                names.add(name)
    return names


def test_one_seeding_convention():
    """Every random stream of the package and the rule scripts comes from ``seeding.generator(seed,
    *keys)``: no module or script creates a generator of its own."""
    package = REPO / "src" / "dpreplication"
    found = {
        (path.relative_to(package).as_posix(), name) for path in package.rglob("*.py") for name in random_sources(path)
    }
    found |= {
        (path.relative_to(REPO).as_posix(), name)
        for path in (REPO / "workflow" / "scripts").rglob("*.py")
        for name in random_sources(path)
    }
    assert found == ALLOWED


def test_a_second_convention_is_caught(tmp_path):
    script = tmp_path / "job.py"
    script.write_text("import numpy as np\nrng = np.random.default_rng(0)\n'''>>> np.random.seed(1)'''\n")
    assert random_sources(script) == {"default_rng"}
