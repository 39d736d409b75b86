"""The cluster path without a cluster: jobs submitted as jobscripts through the generic cluster
executor (profiles/cluster-local, whose submit and status commands stand in for sbatch and sacct)
must produce exactly the tables a local run produces."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCES = REPO / "tests" / "references" / "quick"
# Two dependent DaRRM jobs (f3 reads f2's γ table) and one independent truncated-Laplace job.
TARGETS = ["darrm/f2_gamma_shapes", "darrm/f3_errors", "truncated_laplace/ratio_table"]
NOT_COPIED = {".git", ".venv", ".snakemake", "results", "figures", "logs", "data", "benchmarks", "report.html"}


@pytest.mark.workflow
def test_cluster_generic_executor_reproduces_local_tables(tmp_path):
    workdir = tmp_path / "repo"
    shutil.copytree(
        REPO, workdir, ignore=lambda folder, names: NOT_COPIED & set(names) if folder == str(REPO) else set()
    )
    state = tmp_path / "cluster-state"
    env = {
        **os.environ,
        "CLUSTER_LOCAL_STATE": str(state),
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONPATH": str(workdir / "src"),
    }  # the copy's own package (the workflow checks)
    outputs = [f"results/quick/figures/{target}.csv" for target in TARGETS]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            *outputs,
            "--profile",
            "profiles/cluster-local",
            "--quiet",
            "rules",
            "--config",
            "profile=quick",
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-6000:]

    submitted = sorted(state.glob("*.exit"))
    assert len(submitted) == len(TARGETS), "every job must go through the submit command"
    assert all(path.read_text().strip() == "0" for path in submitted)
    for target, output in zip(TARGETS, outputs):
        produced = pd.read_csv(workdir / output)
        pd.testing.assert_frame_equal(produced, pd.read_csv(REFERENCES / f"{target}.csv"), check_exact=False, rtol=1e-9)


def test_local_status_command_reports_running_success_and_failure(tmp_path):
    status = REPO / "workflow" / "cluster" / "status_local.sh"
    env = {**os.environ, "CLUSTER_LOCAL_STATE": str(tmp_path)}
    (tmp_path / "ok.exit").write_text("0\n")
    (tmp_path / "bad.exit").write_text("1\n")
    answers = {
        job: subprocess.run([str(status), job], env=env, capture_output=True, text=True).stdout.strip()
        for job in ("ok", "bad", "pending")
    }
    assert answers == {"ok": "success", "bad": "failed", "pending": "running"}
