"""The API pages list what the packages export, and the docstrings' Sphinx roles become references.

The pages under ``docs/api/`` are hand-kept ``::: module`` blocks with ``members:`` lists, and
mkdocstrings skips a listed name that does not exist without a word; so a name a package starts
exporting, or one that moves to another module, drops out of the reference silently. These tests
hold each page to its package's exports (``__all__``; where a package declares none, the public
names its modules define), and check the griffe extension that turns the roles into cross-references
(``docs/griffe_sphinx_roles.py``) without building the site.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path

import griffe
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
API = REPO / "docs" / "api"
PAGES = {
    "mechanisms.md": "dpreplication.mechanisms",
    "releases.md": "dpreplication.releases",
    "accounting.md": "dpreplication.accounting",
    "optimisation.md": "dpreplication.optimisation",
    "learning.md": "dpreplication.learning",
    "statistics.md": "dpreplication.statistics",
    "oracles.md": "dpreplication.oracles",
}
"""Each API page and the package (or module) it documents; ``index.md`` is the overview."""
BLOCK = re.compile(r"^::: *(?P<target>[\w.]+) *\n(?P<options>(?:[ \t]+\S.*\n?)*)", re.M)
"""An mkdocstrings block: ``::: identifier`` and its indented YAML options."""


@cache
def package_tree() -> griffe.Module:
    """The package as griffe reads it statically (no import: ``learning`` would need torch)."""
    return griffe.load("dpreplication", search_paths=[str(REPO / "src")])


def griffe_object(path: str) -> griffe.Object:
    """The griffe object of a dotted path under ``dpreplication``."""
    return package_tree()[path.removeprefix("dpreplication.")] if path != "dpreplication" else package_tree()


def defined_names(module: str) -> set[str]:
    """The public names a module defines itself (no submodule, no re-export, no leading underscore)."""
    members = griffe_object(module).members.items()
    return {name for name, obj in members if not (name.startswith("_") or obj.is_alias or obj.is_module)}


def exports(package: str) -> dict[str, str]:
    """``{name: module defining it}`` of a package's public API.

    ``__all__`` where the package declares it (the lazy ``_EXPORTS`` table names each one's module;
    otherwise griffe follows the import); for a package or module that declares none, every public
    name its modules define.
    """
    runtime = importlib.import_module(package)
    if hasattr(runtime, "__all__"):
        table = getattr(runtime, "_EXPORTS", {})
        tree = griffe_object(package)
        return {
            name: f"{package}.{table[name]}" if name in table else tree.members[name].target_path.rpartition(".")[0]
            for name in runtime.__all__
            if not name.startswith("_")
        }
    tree = griffe_object(package)
    modules = [package, *(module.path for module in tree.modules.values())] if tree.is_init_module else [package]
    return {name: module for module in modules for name in defined_names(module)}


def blocks(text: str) -> list[tuple[str, list[str] | None]]:
    """The ``(identifier, members)`` of each ``:::`` block of a page; members None where not listed."""
    found = []
    for match in BLOCK.finditer(text):
        options = (yaml.safe_load(match["options"]) or {}).get("options") or {}
        found.append((match["target"], options.get("members")))
    return found


def member_list_problems(text: str, package: str) -> list[str]:
    """What a page of ``package`` gets wrong: exports it leaves out, names it lists but should not."""
    problems = []
    listed: dict[str, set[str] | None] = {}
    for target, members in blocks(text):
        if target != package and not target.startswith(f"{package}."):
            problems.append(f"'::: {target}' is not in {package}")
        if target == package and griffe_object(package).is_init_module:
            continue  # the package's own docstring (its names are documented under their modules)
        listed[target] = None if members is None else set(members)
    exported = exports(package)
    for name, module in exported.items():
        if module not in listed:
            problems.append(f"{package} exports {name!r}, but the page has no '::: {module}' block")
        elif listed[module] is not None and name not in listed[module]:
            problems.append(f"{package} exports {name!r}, missing from the members of '::: {module}'")
    for module, members in listed.items():
        defined = defined_names(module)
        for name in sorted(members or ()):
            if name not in defined:
                problems.append(f"'::: {module}' lists {name!r}, which that module does not define")
            elif exported.get(name) != module:
                problems.append(f"'::: {module}' lists {name!r}, which {package} does not export")
    return problems


def test_every_api_page_documents_one_package():
    pages = {path.name for path in API.glob("*.md")} - {"index.md"}
    assert pages == set(PAGES), f"pages without a package in PAGES, or PAGES naming no page: {pages ^ set(PAGES)}"


@pytest.mark.parametrize("page, package", PAGES.items())
def test_each_api_page_lists_exactly_its_package_exports(page, package):
    problems = member_list_problems((API / page).read_text(), package)
    assert not problems, f"docs/api/{page}:\n  " + "\n  ".join(problems)


def test_the_member_list_check_sees_drift():
    """A negative control: an export left out, a name that moved away, one never exported."""
    page = (
        "::: dpreplication.optimisation\n\n"
        "::: dpreplication.optimisation.gamma_lp\n    options:\n"
        "      members: ['optimise_gamma', 'GammaLPResult', 'FEASIBILITY_TOLERANCE']\n"
        "::: dpreplication.optimisation.gamma_lp_result\n"
        "::: dpreplication.optimisation.noise_lp\n    options:\n      members: ['NoiseLPResult']\n"
    )
    problems = "\n".join(member_list_problems(page, "dpreplication.optimisation"))
    assert "exports 'optimise_gamma_by_cutting_planes', missing from the members" in problems
    assert "exports 'optimal_noise_lower_bound', missing" in problems
    assert "lists 'GammaLPResult', which that module does not define" in problems
    assert "lists 'FEASIBILITY_TOLERANCE', which dpreplication.optimisation does not export" in problems
    assert "'optimise_gamma'" not in problems.replace("'optimise_gamma_by", "")
    missing_block = member_list_problems("::: dpreplication.statistics\n", "dpreplication.statistics")
    assert "the page has no '::: dpreplication.statistics.distributions' block" in "\n".join(missing_block)


# --------------------------------------------------------------------------- Sphinx roles


@cache
def roles_module():
    """``docs/griffe_sphinx_roles.py``, imported from its path (it is no package module)."""
    spec = importlib.util.spec_from_file_location("griffe_sphinx_roles", REPO / "docs" / "griffe_sphinx_roles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def converted(text: str, scope: str) -> str:
    roles = roles_module()
    return roles.convert(text, griffe_object(scope), package_tree().modules_collection)


def link(identifier: str, text: str) -> str:
    return f'<autoref identifier="{identifier}" optional>`{text}`</autoref>'


@pytest.mark.parametrize(
    "scope, text, expected",
    [
        # relative to the docstring's module
        (
            "dpreplication.accounting.ledger",
            ":func:`spending`",
            link("dpreplication.accounting.ledger.spending", "spending"),
        ),
        # the function's own module, from a function's docstring
        (
            "dpreplication.accounting.ledger.spending",
            ":class:`Ledger`",
            link("dpreplication.accounting.ledger.Ledger", "Ledger"),
        ),
        # a method from its class
        (
            "dpreplication.accounting.ledger.Ledger",
            ":meth:`spent`",
            link("dpreplication.accounting.ledger.Ledger.spent", "spent"),
        ),
        # `~`: the last component shown; a fully qualified target kept as written otherwise
        (
            "dpreplication.accounting.ledger",
            ":class:`~dpreplication.accounting.events.BasicCompositionAccountant`",
            link("dpreplication.accounting.events.BasicCompositionAccountant", "BasicCompositionAccountant"),
        ),
        (
            "dpreplication.mechanisms",
            ":mod:`dpreplication.mechanisms.selection`",
            link("dpreplication.mechanisms.selection", "dpreplication.mechanisms.selection"),
        ),
        # relative to the package, then a re-export followed to the object it imports
        (
            "dpreplication.oracles",
            ":mod:`mechanisms.additive`",
            link("dpreplication.mechanisms.additive", "mechanisms.additive"),
        ),
        (
            "dpreplication.accounting",
            ":func:`dpreplication.accounting.ledger.record_laplace`",
            link("dpreplication.releases.recorder.record_laplace", "dpreplication.accounting.ledger.record_laplace"),
        ),
        # a lazy export leads to its defining module
        (
            "dpreplication",
            ":func:`~dpreplication.mechanisms.private_quantile`",
            link("dpreplication.mechanisms.quantile.private_quantile", "private_quantile"),
        ),
        # not loaded, or `!`: code text, no reference
        ("dpreplication.releases.recorder", ":mod:`contextvars`", "`contextvars`"),
        ("dpreplication.accounting.events", ":class:`~dp_accounting.dp_event.DpEvent`", "`DpEvent`"),
        ("dpreplication.accounting.ledger", ":func:`!spending`", "`spending`"),
        ("dpreplication.accounting.ledger", ":func:`no_such_function`", "`no_such_function`"),
        # an explicit title
        (
            "dpreplication.accounting.ledger",
            ":func:`the ledger <spending>`",
            link("dpreplication.accounting.ledger.spending", "the ledger"),
        ),
    ],
)
def test_a_role_becomes_a_reference_or_code(scope, text, expected):
    assert converted(f"See {text}.", scope) == f"See {expected}."


def test_no_role_is_left_in_the_documented_docstrings():
    """With both extensions, as the site loads them, no docstring of the documented packages keeps a role."""
    extensions = griffe.load_extensions(
        str(REPO / "docs" / "griffe_shared_docstrings.py"), str(REPO / "docs" / "griffe_sphinx_roles.py")
    )
    tree = griffe.load("dpreplication", search_paths=[str(REPO / "src")], extensions=extensions)
    left = []

    def walk(obj):
        if obj.is_alias:
            return
        if obj.docstring is not None and roles_module().ROLE.search(obj.docstring.value):
            left.append(obj.path)
        for member in obj.members.values():
            walk(member)

    for package in PAGES.values():
        walk(tree[package.removeprefix("dpreplication.")])
    walk(tree)
    assert not left, f"Sphinx roles left in {left}"
    ledger = tree["accounting.ledger"].docstring.value
    assert link("dpreplication.accounting.ledger.spending", "spending") in ledger
