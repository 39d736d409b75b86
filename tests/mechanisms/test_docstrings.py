"""Docstrings of ``dpreplication.mechanisms``: numpydoc ``Parameters`` match the signatures, and
every mechanism (a public callable taking ``rng``/``generator``) states its guarantee and cites its source."""

import importlib
import inspect
import re

import pytest

MODULES = [
    importlib.import_module(f"dpreplication.mechanisms.{name}")
    for name in (
        "additive",
        "bounds",
        "enhanced_exponential",
        "feasible_region",
        "gnmax",
        "majority",
        "majority_utility",
        "noise_comparison",
        "quality",
        "quantile",
        "selection",
        "selection_sampling",
        "truncated_laplace",
    )
]
GUARANTEE = re.compile(r"ε-DP|\(ε, ?δ\)-DP|-DP\b|differential(ly)? priva", re.IGNORECASE)
SOURCE = re.compile(r"Eq\.|Equation|Theorem|Lemma|Algorithm|Definition|§")
ENTRY = re.compile(r"(\*{0,2}\w+)(?: : (.+))?$")


def public_callables(module):
    """Public functions and classes defined in ``module`` (not imported into it), in source order."""
    return [
        obj
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(obj) or inspect.isroutine(obj))
        and getattr(obj, "__module__", None) == module.__name__
    ]


def documented_parameters(doc):
    """``[(name, type, description)]`` of the numpydoc ``Parameters`` section of ``doc``."""
    lines = inspect.cleandoc(doc or "").splitlines()
    headers = [i for i in range(len(lines) - 1) if lines[i + 1].strip() and set(lines[i + 1]) == {"-"}]
    starts = [i for i in headers if lines[i] == "Parameters" and len(lines[i + 1]) == len("Parameters")]
    if not starts:
        return []
    start = starts[0] + 2
    stop = min([i for i in headers if i > start] + [len(lines)])
    entries = []
    for line in lines[start:stop]:
        if line and not line[0].isspace():
            match = ENTRY.match(line)
            entries.append([match[1] if match else line, match and match[2], ""])
        elif line.strip() and entries:
            entries[-1][2] += line.strip() + " "
    return [tuple(entry) for entry in entries]


def parameter_problems(obj):
    """What is wrong with ``obj``'s ``Parameters`` section against its signature; empty if nothing."""
    prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    expected = [
        prefix.get(p.kind, "") + p.name
        for p in inspect.signature(obj).parameters.values()
        if p.name not in ("self", "cls")
    ]
    documented = documented_parameters(obj.__doc__)
    problems = []
    if [name for name, _, _ in documented] != expected:
        problems.append(f"documents {[name for name, _, _ in documented]}, signature has {expected}")
    problems += [f"{name}: no type" for name, kind, _ in documented if not kind]
    problems += [f"{name}: no description" for name, _, description in documented if not description.strip()]
    return problems


def ident(obj):
    """``module.name`` of a public callable, as a test id."""
    return f"{obj.__module__.rsplit('.', 1)[1]}.{obj.__name__}"


CALLABLES = [obj for module in MODULES for obj in public_callables(module)]
MECHANISMS = [obj for obj in CALLABLES if {"rng", "generator"} & set(inspect.signature(obj).parameters)]


@pytest.mark.parametrize("obj", CALLABLES, ids=ident)
def test_parameters_section_matches_the_signature(obj):
    """Every parameter is documented, in order, with a type and a description; no extra ones."""
    assert parameter_problems(obj) == []


@pytest.mark.parametrize("obj", MECHANISMS, ids=ident)
def test_random_releases_state_a_guarantee_and_a_source(obj):
    """A callable that draws randomness states its privacy guarantee and the result it implements."""
    assert GUARANTEE.search(obj.__doc__ or ""), "no privacy guarantee"
    assert SOURCE.search(obj.__doc__ or ""), "no equation, theorem, lemma, algorithm, definition or § cited"


@pytest.mark.parametrize(
    "module", [importlib.import_module("dpreplication.mechanisms"), *MODULES], ids=lambda m: m.__name__
)
def test_module_docstring_states_a_guarantee(module):
    """Each module of the mechanisms layer says what privacy its contents give."""
    assert GUARANTEE.search(module.__doc__ or "")


def test_the_checker_catches_missing_extra_misordered_and_empty_entries():
    """Negative controls: the same checker flags wrong sections and passes a right one."""

    def documented(doc):
        def function(epsilon, delta=0.5, *args, **kwargs):
            pass

        function.__doc__ = doc
        return function

    right = """Do it.

    Parameters
    ----------
    epsilon : float
        Budget, ε > 0.
    delta : float
        0 < δ < 1.
    *args : tuple
        Passed on.
    **kwargs : dict
        Passed on.

    Returns
    -------
    float
        Something.
    """
    assert parameter_problems(documented(right)) == []
    assert documented_parameters(right)[0] == ("epsilon", "float", "Budget, ε > 0. ")
    wrong = [
        right.replace("    delta : float\n        0 < δ < 1.\n", ""),  # missing
        right.replace("    **kwargs", "    extra : int\n        Not in the signature.\n    **kwargs"),  # extra
        right.replace("epsilon :", "TMP :").replace("delta :", "epsilon :").replace("TMP :", "delta :"),  # swapped
        right.replace("        Budget, ε > 0.\n", ""),  # no description
        right.replace("epsilon : float", "epsilon"),  # no type
        right.replace("    *args : tuple", "    args : tuple"),  # star dropped
        "Do it.",  # no section at all
    ]
    for doc in wrong:
        assert parameter_problems(documented(doc)), doc
    assert not GUARANTEE.search("Draw from the Laplace distribution (Theorem 3).")
    assert not SOURCE.search("Release the noisy answer: ε-DP.")
