"""Every command in the shell blocks of the README and of the docs pages it sends readers to (set-up,
workflow, tests) runs as written (as a dry run where it is long), so they cannot drift from the
workflow; every `make` target the README or a docs page names exists."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
COMMAND_PAGES = ("README.md", "docs/setup.md", "docs/workflow.md", "docs/testing.md")
"""The pages whose ```bash blocks are commands to run: the README and the pages its commands moved to."""
PAGES = {page: (REPO / page).read_text() for page in COMMAND_PAGES}
DOCS_TEXT = "\n".join(path.read_text() for path in sorted((REPO / "docs").rglob("*.md")))
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
NOT_RUN: dict[str, str] = {}
"""README commands a test cannot run, with the reason (none today)."""
PAPER_PROFILE_TARGET = "pf_pmf_bars"
"""The paper profile plans hundreds of long jobs: its commands are dry-run for one target."""
VARIANT_FILE = next(
    match.group(1) for text in PAGES.values() if (match := re.search(r"```yaml\n# my.yaml\n(.*?)```", text, re.S))
)
"""The `my.yaml` that the --configfile example reads, as its page shows it."""


def shell_commands(text: str) -> list[str]:
    """The lines of a page's ```bash blocks, without trailing comments."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command = re.split(r"\s{2,}#", line)[0].strip()
            if command:
                commands.append(command)
    return commands


def readme_commands() -> list[str]:
    """The lines of the README's ```bash blocks, without trailing comments."""
    return shell_commands(README)


def page_commands() -> list[str]:
    """Every command of the command pages, each once, in page order."""
    return list(dict.fromkeys(command for text in PAGES.values() for command in shell_commands(text)))


def dry_run(command: str) -> list[str]:
    """The argv that checks ``command`` without its long work: make -n, snakemake -n; a quick
    module command as it is."""
    words = shlex.split(command)
    environment = [w for w in words if re.fullmatch(r"[A-Z_]+=.*", w)]
    words = words[len(environment) :]
    if words[0] == "make":
        return ["env", *environment, "make", "-n", *words[1:]]
    if words[0] == ".venv/bin/snakemake":
        extra = [PAPER_PROFILE_TARGET] if "profile=paper" in words else []
        return [SNAKEMAKE, *words[1:], *(["-n"] if "--list-rules" not in words else []), *extra]
    if words[:3] == [".venv/bin/python", "-m", "dpreplication.pipeline.config"]:
        return [sys.executable, *words[1:]]  # prints a configuration: quick, run as written
    raise AssertionError(f"README command {command!r} is not make, snakemake or a known module: add how to check it")


@pytest.fixture
def variant_file():
    """The `my.yaml` the README's --configfile example reads, present only during the test."""
    path = REPO / "my.yaml"
    created = not path.exists()
    if created:
        path.write_text(VARIANT_FILE)
    yield path
    if created:
        path.unlink()


@pytest.mark.parametrize("command", page_commands())
def test_readme_command_runs_as_written(command, variant_file):
    if command in NOT_RUN:
        pytest.skip(NOT_RUN[command])
    environment = {**os.environ, "DPREPLICATION_DATA_MIRROR": os.environ.get("DPREPLICATION_DATA_MIRROR", "")}
    result = subprocess.run(dry_run(command), cwd=REPO, capture_output=True, text=True, timeout=600, env=environment)
    assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"


def test_the_readme_has_its_two_setup_commands():
    commands = readme_commands()
    assert commands[:2] == ["make replicate", "make test"]


def make_targets(text: str) -> set[str]:
    """The `make` targets a page names, in its prose or its commands."""
    return set(re.findall(r"`make ([a-z-]+)`", text)) | {
        c.split()[1] for c in shell_commands(text) if c.startswith("make ")
    }


def test_every_make_target_the_readme_names_exists():
    readme_targets = make_targets(README)
    targets = readme_targets | make_targets(DOCS_TEXT)
    makefile = (REPO / "Makefile").read_text()
    missing = sorted(t for t in targets if not re.search(rf"^{re.escape(t)}:", makefile, re.M))
    everyday = {"replicate", "test", "quick", "test-fast", "check-figures", "report", "mutants", "readme"}
    assert not missing and everyday <= readme_targets, (missing, sorted(everyday - readme_targets))
