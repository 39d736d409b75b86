"""The package as a library: public API per concept, runnable examples, API docs, argument errors."""

import ast
import doctest
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpreplication

REPO = Path(__file__).resolve().parents[1]
CONCEPTS = ["mechanisms", "accounting", "optimisation", "learning", "statistics"]
NEEDS_AN_EXAMPLE = {
    "mechanisms": [
        "exponential_mechanism_pmf",
        "permute_and_flip_pmf",
        "report_noisy_max_laplace_pmf",
        "sample_report_noisy_max",
        "sample_permute_and_flip_batch",
        "laplace_mechanism",
        "calibrate_truncated_laplace",
        "truncated_laplace_mechanism",
        "analytic_gaussian_sigma",
        "classic_gaussian_sigma",
        "dampening_factor",
        "selection_pmf",
        "select",
        "gamma_subsampling",
        "gamma_double_subsampling",
        "gamma_constant",
        "sample_darrm",
        "gnmax_aggregate",
        "subsample_majority",
    ],
    "optimisation": ["optimise_gamma"],
    "accounting": ["verify_privacy", "dp_sgd_epsilon", "gnmax_noise_scale", "spending"],
    "learning": ["privgene", "fit_private_erm", "fit_functional_mechanism", "fit_private_svm", "gupt_aggregate"],
}


def test_version_and_typed_marker():
    assert dpreplication.__version__ and dpreplication.__version__ != "0+unknown"
    assert (Path(dpreplication.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize("concept", CONCEPTS)
def test_every_public_name_resolves(concept):
    package = importlib.import_module(f"dpreplication.{concept}")
    assert package.__all__ and len(set(package.__all__)) == len(package.__all__)
    absent = {}
    for name in package.__all__:
        try:
            assert getattr(package, name) is not None, name
        except ModuleNotFoundError as error:  # a name of the 'learning' extra (torch, Opacus) not installed
            if error.name not in ("torch", "opacus"):
                raise
            absent[name] = error.name
    with pytest.raises(AttributeError, match="has no attribute"):
        package.not_a_public_name  # noqa: B018
    if absent:
        pytest.skip(f"{sorted(absent)} need {sorted(set(absent.values()))} (extra 'learning'); the rest resolve")


def test_importing_a_concept_is_lazy():
    code = "import sys, dpreplication.mechanisms; print('scipy' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


@pytest.mark.parametrize("concept, names", NEEDS_AN_EXAMPLE.items())
def test_public_mechanisms_have_runnable_examples(concept, names):
    package = importlib.import_module(f"dpreplication.{concept}")
    modules = set()
    for name in names:
        function = getattr(package, name)
        assert ">>>" in (function.__doc__ or ""), f"{concept}.{name} has no example"
        modules.add(importlib.import_module(function.__module__))
    for module in sorted(modules, key=lambda m: m.__name__):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def test_the_docs_landing_page_example_runs():
    result = doctest.testfile(str(REPO / "docs" / "index.md"), module_relative=False)
    assert result.failed == 0 and result.attempted >= 3


@pytest.mark.skipif(
    shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None, reason="mkdocs is not installed"
)
def test_api_docs_build_without_warnings(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    page = (tmp_path / "site" / "api" / "mechanisms" / "index.html").read_text()
    assert "permute_and_flip_pmf" in page and "Examples" in page
    # The docstrings' Sphinx roles are links on the pages (docs/griffe_sphinx_roles.py), none left raw.
    raw = {
        path.parent.name: len(re.findall(r":(?:func|class|meth|attr|mod|data|exc|obj|const):", path.read_text()))
        for path in (tmp_path / "site" / "api").glob("*/index.html")
    }
    assert not any(raw.values()), f"raw Sphinx roles on the API pages: {raw}"
    accounting = (tmp_path / "site" / "api" / "accounting" / "index.html").read_text()
    assert 'href="#dpreplication.accounting.ledger.spending"><code>spending</code></a>' in accounting
    assert (
        'href="../releases/#dpreplication.releases.events.LibraryDpEvent"><code>LibraryDpEvent</code></a>' in accounting
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: importlib.import_module("dpreplication.optimisation").optimise_gamma(11, 3, epsilon=-0.1),
            "epsilon must be positive",
        ),
        (
            lambda: importlib.import_module("dpreplication.optimisation").optimise_gamma(11, 12, epsilon=0.1),
            "m must lie in",
        ),
        (
            lambda: importlib.import_module("dpreplication.optimisation").optimise_gamma(11, 3, 0.1, delta=1.5),
            "delta must lie in",
        ),
        (
            lambda: importlib.import_module("dpreplication.optimisation").optimise_gamma(11, 3, 0.1, solver="higs"),
            "solver must be one of",
        ),
        (
            lambda: importlib.import_module("dpreplication.mechanisms").permute_and_flip_pmf([1.0, 0.0], epsilon=0),
            "epsilon must be",
        ),
        (
            lambda: importlib.import_module("dpreplication.mechanisms").calibrate_truncated_laplace(1.0, delta=0.7),
            "delta must lie in",
        ),
        (
            lambda: importlib.import_module("dpreplication.mechanisms").gnmax_aggregate([[3, 1]], 0.0, None),
            "sigma must be positive",
        ),
        (
            lambda: importlib.import_module("dpreplication.mechanisms").feasible_region_vertices(0.1, Delta=1.5),
            r"Delta must lie in \[0, 1\], got 1.5",
        ),
        (
            lambda: importlib.import_module(
                "dpreplication.mechanisms.majority"
            ).subsample_majority_probability_enumerated(5, 0),
            "subset size m",
        ),
        (
            lambda: importlib.import_module("dpreplication.mechanisms").laplace_privacy_profile(0.5, 1.0, -1.0),
            "sensitivity must be positive",
        ),
    ],
)
def test_bad_arguments_raise_a_value_error_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_environment_module_has_a_help():
    result = subprocess.run(
        [sys.executable, "-m", "dpreplication.pipeline.environment", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0 and "requirements.lock" in result.stdout


def code_lines(path: Path) -> int:
    """Lines of code of a module: not blank, not a comment, not inside a docstring."""
    source = path.read_text()
    docstring_lines = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", [])
        for statement in body if isinstance(body, list) else []:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                docstring_lines.update(range(statement.lineno, statement.end_lineno + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if number not in docstring_lines and line.strip() and not line.lstrip().startswith("#")
    )


def test_modules_stay_small():
    """One concept per module (issue 14): at most 550 lines of code, 400 in replications/.

    Docstrings do not count: the numpydoc sections that state each parameter's range are wanted.
    """
    package = REPO / "src" / "dpreplication"
    too_long = {
        str(path.relative_to(package)): lines
        for path in package.rglob("*.py")
        if (lines := code_lines(path)) > (400 if path.parent.name == "replications" else 550)
    }
    assert too_long == {}
    assert code_lines(package / "data" / "tabular.py") > 200, "the counter must count code"
