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


def load_runner():
    spec = importlib.util.spec_from_file_location("mutant_runner", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    return runner


def test_a_kill_by_a_test_that_fails_unmutated_voids_the_run(tmp_path):
    """The kills are checked on the unmutated copy: the test that killed a mutant must pass there."""
    runner = load_runner()
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_toy.py").write_text(
        "def test_passes():\n    pass\n\n\ndef test_fails():\n    assert False\n"
    )
    outcome, _, _, failed = runner.run_tests(tmp_path, ["tests/test_toy.py"])
    assert (outcome, failed) == ("failed", ["tests/test_toy.py::test_fails"])
    runner.check_the_kills(tmp_path, [{"killed_by": ["tests/test_toy.py::test_passes"]}, {"killed_by": []}])
    with pytest.raises(SystemExit, match="fail on the unmutated copy too"):
        runner.check_the_kills(tmp_path, [{"killed_by": ["tests/test_toy.py::test_fails"]}])


def test_every_mutant_applies_to_the_current_source():
    """A refactor that moves a mutant's line makes it silently untestable: catch it without running it."""
    runner = load_runner()
    source = runner.REPO / "src" / "dpreplication"
    matches = {
        mutant["id"]: (source / mutant["file"]).read_text().count(mutant["original"])
        for mutant in runner.load(RUNNER.with_name("mutants.yaml"))
    }
    stale = {name: count for name, count in matches.items() if count != 1}
    assert not stale, f"mutants whose original is not exactly once in its file (id: matches): {stale}"


def test_every_mutants_killer_is_a_test_of_its_selection():
    """The killer runs alone first: a renamed or moved test would cost every run a wasted start."""
    runner = load_runner()
    wrong = {}
    for mutant in runner.load(RUNNER.with_name("mutants.yaml")):
        module, _, name = mutant["killer"].partition("::")
        function = name.partition("[")[0]
        path = runner.REPO / module
        if module not in mutant["tests"] or not path.is_file() or f"def {function}(" not in path.read_text():
            wrong[mutant["id"]] = mutant["killer"]
    assert not wrong, f"killers that are not a test of their mutant's selection: {wrong}"
