"""End-to-end budgets of the quick and default profiles (issue 16), read from a finished run's log.

A budget is the wall-clock time of a run of the whole DAG from scratch on the 2-core reference box:
quick ≤ 5 min, default ≤ 45 min (`make replicate` also creates the venv first; that is not counted
here). The benchmark reads the Snakemake logs of a run directory (``.snakemake/log/``) and takes the
newest one of the profile that ran every job of its plan, from scratch and to the end: its first
"Job stats" total is at least the profile's full plan (a dry run with ``--forceall``), and its last
progress line reads "N of N steps (100%) done". Its wall-clock time runs from the log's ``Date:``
header to its last timestamp. Select the run directory with ``DPREPLICATION_BENCHMARK_RUN``
(default: this repository); without such a log the benchmark skips with the reason.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

import pytest

from dpreplication.pipeline.paper_plan import planned_jobs

ROOT = Path(__file__).resolve().parents[1]
RUN = Path(os.environ.get("DPREPLICATION_BENCHMARK_RUN", ROOT))
BUDGET_SECONDS = {"quick": 5 * 60, "default": 45 * 60}
TIMESTAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]$")
DONE = re.compile(r"^(\d+) of (\d+) steps \(100%\) done$")
TOTAL = re.compile(r"^total\s+(\d+)$")


def log_profile(lines: list[str]) -> str:
    """The profile a log ran: the overlay in its ``Config file(s)`` header, or ``default``."""
    header = next((line for line in lines if line.strip().startswith("Config file(s):")), "")
    overlay = re.search(r"config/profiles/(\w+)\.yaml", header)
    return overlay.group(1) if overlay else "default"


def complete_run_seconds(log: Path, planned: int) -> float | None:
    """Wall-clock seconds of ``log`` if it ran a whole plan of at least ``planned`` jobs to the end."""
    lines = log.read_text(errors="replace").splitlines()
    totals = [int(match.group(1)) for line in lines if (match := TOTAL.match(line.strip()))]
    done = [match for line in lines if (match := DONE.match(line.strip()))]
    if not totals or totals[0] < planned or not done or done[-1].group(1) != done[-1].group(2):
        return None
    started = next(line.split("Date:", 1)[1].strip() for line in lines if line.strip().startswith("Date:"))
    stamps = [match.group(1) for line in lines if (match := TIMESTAMP.match(line.strip()))]
    finished = datetime.strptime(stamps[-1], "%a %b %d %H:%M:%S %Y")
    return (finished - datetime.strptime(started, "%Y-%m-%d %H:%M:%S")).total_seconds()


@pytest.mark.parametrize("profile", sorted(BUDGET_SECONDS))
def test_whole_profile_within_budget(benchmark, profile):
    planned = sum(planned_jobs(ROOT / "Snakefile", profile).values())
    logs = sorted((RUN / ".snakemake" / "log").glob("*.snakemake.log"), reverse=True)
    runs = [
        log
        for log in logs
        if log_profile(log.read_text(errors="replace").splitlines()) == profile
        and complete_run_seconds(log, planned) is not None
    ]
    if not runs:
        pytest.skip(f"no log of a from-scratch {profile} run under {RUN / '.snakemake/log'}: run it in a clean tree")
    seconds = benchmark.pedantic(complete_run_seconds, args=(runs[0], planned), rounds=1, iterations=1)
    benchmark.extra_info.update(profile=profile, log=runs[0].name, planned_jobs=planned, wall_seconds=seconds)
    assert seconds <= BUDGET_SECONDS[profile], (
        f"{profile}: {seconds:.0f} s in {runs[0].name}, budget {BUDGET_SECONDS[profile]} s"
    )
