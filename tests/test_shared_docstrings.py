"""Shared numpydoc entries (:mod:`dpreplication.docstrings`): substitution, its errors, and that every
docstring written with placeholders is complete at run time and on the API pages."""

import ast
import importlib
import inspect
import sys
from pathlib import Path

import pytest

from dpreplication.docstrings import PLACEHOLDER, parameter_entries, shared_parameters, substitute

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "dpreplication"
ENTRIES = parameter_entries(
    """
    epsilon : float
        Privacy budget, ε > 0.
    delta : float
        0 < δ < 1; a second
        line of description.
    **kwargs : dict
        Passed on.
    """
)


def test_parameter_entries_split_a_block_by_name():
    assert list(ENTRIES) == ["epsilon", "delta", "kwargs"]
    assert ENTRIES["delta"] == "delta : float\n    0 < δ < 1; a second\n    line of description."
    assert ENTRIES["kwargs"] == "**kwargs : dict\n    Passed on."
    with pytest.raises(ValueError, match="not a new parameter entry"):
        parameter_entries("a : int\n    One.\na : int\n    Again.")
    with pytest.raises(ValueError, match="must start with"):
        parameter_entries("\n        indented description first\n    a : int\n")


def test_a_placeholder_line_becomes_the_entries_at_its_indentation():
    doc = """Do it with ``{braces}`` in a sentence.

    Parameters
    ----------
    {epsilon, delta}
    noise : {"laplace", "gumbel"}
        Stays as written.
    """
    assert (
        substitute(doc, ENTRIES)
        == """Do it with ``{braces}`` in a sentence.

    Parameters
    ----------
    epsilon : float
        Privacy budget, ε > 0.
    delta : float
        0 < δ < 1; a second
        line of description.
    noise : {"laplace", "gumbel"}
        Stays as written.
    """
    )
    assert substitute("no placeholder {here}\n", ENTRIES) == "no placeholder {here}\n"
    section = {"returns": '\n        Returns\n        -------\n        float\n            The value.\n        '}
    assert substitute("  {returns}\n", section) == "  Returns\n  -------\n  float\n      The value.\n"


def test_an_unknown_placeholder_raises_naming_it():
    with pytest.raises(ValueError, match=r"f: no shared docstring entry \['sigma'\]"):
        substitute("    {epsilon, sigma}\n", ENTRIES, owner="f")


def test_the_decorator_completes_the_docstring_and_keeps_the_object():
    def release(epsilon, delta):
        """Release it.

        Parameters
        ----------
        {epsilon, delta}
        """

    decorated = shared_parameters(ENTRIES)(release)
    assert decorated is release
    assert inspect.cleandoc(release.__doc__) == (
        "Release it.\n\nParameters\n----------\nepsilon : float\n    Privacy budget, ε > 0.\n"
        "delta : float\n    0 < δ < 1; a second\n    line of description."
    )
    assert not PLACEHOLDER.search(release.__doc__)


def test_the_decorator_refuses_what_it_cannot_do():
    def unknown():
        """Do it.

        Parameters
        ----------
        {rng}
        """

    def plain():
        """Nothing to fill."""

    def stripped():
        pass  # python -OO: no docstring, nothing to do

    with pytest.raises(ValueError, match=r"unknown: no shared docstring entry \['rng'\]"):
        shared_parameters(ENTRIES)(unknown)
    with pytest.raises(ValueError, match="has no placeholder line"):
        shared_parameters(ENTRIES)(plain)
    assert shared_parameters(ENTRIES)(stripped).__doc__ is None
    with pytest.raises(ValueError, match="two different shared docstring entries named 'epsilon'"):
        shared_parameters(ENTRIES, parameter_entries("epsilon : float\n    Other text."))
    shared_parameters(ENTRIES, {"epsilon": ENTRIES["epsilon"]})  # the same text twice is one entry


def placeholder_docstrings():
    """``(module, qualname)`` of every def and class under src/ whose source docstring has a placeholder line."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(("dpreplication", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")

        def walk(node, prefix, module=module):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    doc = ast.get_docstring(child, clean=False)
                    if doc and PLACEHOLDER.search(doc):
                        found.append((module, prefix + child.name))
                    if isinstance(child, ast.ClassDef):
                        walk(child, f"{prefix}{child.name}.")

        walk(ast.parse(path.read_text()), "")
    return found


PLACEHOLDER_DOCSTRINGS = placeholder_docstrings()


def test_the_package_uses_shared_entries():
    modules = {module for module, _ in PLACEHOLDER_DOCSTRINGS}
    assert len(PLACEHOLDER_DOCSTRINGS) > 80 and "dpreplication.mechanisms.selection_sampling" in modules


@pytest.mark.parametrize(("module", "qualname"), PLACEHOLDER_DOCSTRINGS, ids=lambda value: value)
def test_every_placeholder_docstring_is_complete_at_run_time(module, qualname):
    """A docstring with placeholders in the source has none left once imported (no decorator forgotten)."""
    obj = importlib.import_module(module)
    for name in qualname.split("."):
        obj = getattr(obj, name)
    assert obj.__doc__ and not PLACEHOLDER.search(obj.__doc__)
    assert "Parameters\n" in obj.__doc__ or "Raises\n" in obj.__doc__ or "Returns\n" in obj.__doc__


def test_the_api_pages_read_the_completed_docstrings():
    """The griffe extension of mkdocs.yml swaps in the run-time docstring, and only where it must."""
    griffe = pytest.importorskip("griffe", reason="the docs extra (mkdocstrings) is not installed")
    sys.path.insert(0, str(REPO / "docs"))
    try:
        from griffe_shared_docstrings import SharedDocstrings
    finally:
        sys.path.remove(str(REPO / "docs"))
    package = griffe.load(
        "dpreplication.mechanisms",
        search_paths=[str(REPO / "src")],
        extensions=griffe.load_extensions(SharedDocstrings),
    )
    from dpreplication.mechanisms import selection_sampling

    sampler = package["selection_sampling.sample_permute_and_flip_batch"]
    assert sampler.docstring.value == inspect.cleandoc(selection_sampling.sample_permute_and_flip_batch.__doc__)
    assert "Sensitivity Δ > 0 (finite) of the scores" in sampler.docstring.value
    assert not PLACEHOLDER.search(sampler.docstring.value)
    # a docstring without placeholders keeps its static reading
    assert package["selection.expected_error"].docstring.value.startswith("Return the expected sub-optimality")
