"""Every curated privacy mutant is killed by the tests (`make mutants`; about 2 minutes)."""

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
