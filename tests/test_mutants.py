"""Every curated privacy mutant is killed by the tests (`make mutants`; about 2 minutes)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parent / "mutants" / "run.py"


@pytest.mark.workflow
def test_every_privacy_mutant_is_killed(tmp_path):
    result = subprocess.run(
        [sys.executable, str(RUNNER), "--report", str(tmp_path)], capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "SURVIVED" not in result.stdout and "NOT APPLIED" not in result.stdout


def test_every_mutant_applies_to_the_current_source():
    """A refactor that moves a mutant's line makes it silently untestable: catch it without running it."""
    spec = importlib.util.spec_from_file_location("mutant_runner", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    source = runner.REPO / "src" / "dpreplication"
    matches = {
        mutant["id"]: (source / mutant["file"]).read_text().count(mutant["original"])
        for mutant in runner.load(RUNNER.with_name("mutants.yaml"))
    }
    stale = {name: count for name, count in matches.items() if count != 1}
    assert not stale, f"mutants whose original is not exactly once in its file (id: matches): {stale}"
