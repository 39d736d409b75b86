"""The DAG: every rule is listed, and one figure can be rebuilt alone."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--directory", str(REPO), "--snakefile", str(REPO / "Snakefile")]


def jobs(*args):
    result = subprocess.run([*SNAKEMAKE, "-n", "--forceall", *args, "--config", "profile=quick"],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    table = result.stdout.split("Job stats:")[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def test_dry_run_lists_every_rule():
    listed = set(subprocess.run([*SNAKEMAKE, "--list-rules"], cwd=REPO, capture_output=True, text=True).stdout.split())
    scheduled = jobs()
    assert listed - {"all"} <= set(scheduled) | {"all"}, listed - set(scheduled)


def test_one_figure_builds_only_what_it_needs():
    scheduled = jobs("results/quick/figures/permute_and_flip/pmf_bars.png")
    assert scheduled == {"pf_pmf_bars": 1, "total": 1}


def test_a_data_figure_pulls_only_its_data():
    scheduled = jobs("results/quick/figures/permute_and_flip/anchors.csv")
    assert scheduled == {"fetch_data_file": 1, "pf_anchors": 1, "total": 2}
