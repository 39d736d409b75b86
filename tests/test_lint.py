"""Ruff's linter and formatter are clean on the package, the workflow scripts, tests and benchmarks;
Snakemake's linter and snakefmt on the workflow."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).parent / "ruff"
PATHS = ["src", "tests", "workflow", "benchmarks"]


@pytest.mark.skipif(not RUFF.is_file(), reason="ruff is not installed in this environment")
@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_ruff_is_clean(command):
    result = subprocess.run([str(RUFF), *command, *PATHS], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_snakemake_lint_is_clean():
    """``snakemake --lint``: rule files hold rules, helper functions live in common.smk, and every rule
    has its log and conda directives."""
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint", "--config", "profile=quick"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0 and "Lints for" not in result.stdout + result.stderr, result.stdout[-4000:]


SNAKEFMT = Path(sys.executable).parent / "snakefmt"


@pytest.mark.skipif(not SNAKEFMT.is_file(), reason="snakefmt is not installed in this environment")
def test_snakefmt_is_clean():
    """The Snakefile and rule files as snakefmt writes them (line length from pyproject.toml)."""
    result = subprocess.run(
        [str(SNAKEFMT), "--check", "--diff", "Snakefile", "workflow/rules"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
