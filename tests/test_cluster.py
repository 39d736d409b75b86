"""The cluster path against a real SLURM: a single-node cluster started in the test
(tests/slurm_cluster.py) runs the workflow through ``profiles/slurm``. Its outputs must equal a
local run's byte for byte; a failing job must be reported as failed, and the rerun complete.

Skipped, with the reason, where SLURM is not installed or the test is not root; ``.ci/run``
installs ``slurm-wlm`` and ``munge`` when it runs as root, so CI runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from slurm_cluster import ClusterUnavailable, single_node_cluster, unavailable_reason

REPO = Path(__file__).resolve().parents[1]
# Two dependent DaRRM jobs (F3 reads F2's γ table) and one independent truncated-Laplace job.
TARGETS = ["darrm/f2_gamma_shapes", "darrm/f3_errors", "truncated_laplace/ratio_table"]
FIGURES = ["darrm/f2_gamma_shapes", "darrm/f3_errors"]
"""The targets that are figures: their PNGs are requested too, drawn by their (local) drawing rules."""
FAILING_SCRIPT = Path("workflow/scripts/truncated_laplace/ratio_table.py")
NOT_COPIED = {".git", ".venv", ".snakemake", "results", "figures", "logs", "data", "benchmarks", "report.html"}
RUN_TIMEOUT = 600  # seconds for one Snakemake run (each job takes seconds; SLURM polls every few)
# The plugin's first status query waits this long; squeue keeps finished jobs for MinJobAge ≥ 3 × it.
STATUS_DELAY = 5

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason())),
]


def checkout(destination: Path) -> Path:
    """A copy of the working tree without outputs (the workflow runs on the copy's own package)."""
    shutil.copytree(
        REPO, destination, ignore=lambda folder, names: NOT_COPIED & set(names) if folder == str(REPO) else set()
    )
    return destination


def snakemake(workdir: Path, *options: str, env: dict | None = None) -> subprocess.CompletedProcess:
    outputs = [f"results/quick/figures/{target}.csv" for target in TARGETS]
    outputs += [f"results/quick/figures/{figure}.png" for figure in FIGURES]
    environment = {
        **(env or os.environ),
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONPATH": str(workdir / "src"),  # the copy's own package (the workflow checks)
    }
    return subprocess.run(
        # A run of a few jobs: without the profile's 50/10s rate limit, which keeps a finished run
        # waiting for its 10-s timer (scheduling every second costs nothing at this size).
        [
            sys.executable,
            "-m",
            "snakemake",
            *outputs,
            "--config",
            "profile=quick",
            "--max-jobs-per-timespan",
            "100/1s",
            *options,
        ],
        cwd=workdir,
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def through_slurm(workdir: Path, cluster, *options: str) -> subprocess.CompletedProcess:
    return snakemake(
        workdir,
        *options,
        "--profile",
        "profiles/slurm",
        "--jobs",
        "4",
        "--slurm-no-account",  # no accounting daemon, hence no accounts
        "--slurm-status-command",
        "squeue",
        "--slurm-init-seconds-before-status-checks",
        str(STATUS_DELAY),
        env=cluster.env,
    )


def produced_files(workdir: Path) -> dict[str, bytes]:
    """Every file the targets published, by path (CSV, PNG, Markdown, provenance sidecar)."""
    root = workdir / "results" / "quick" / "figures"
    return {
        str(path.relative_to(root)): path.read_bytes()
        for target in TARGETS
        for path in sorted((root / target).parent.glob(Path(target).name + ".*"))
    }


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        with single_node_cluster(tmp_path_factory.mktemp("slurm")) as running:
            yield running
    except ClusterUnavailable as error:
        pytest.fail(f"SLURM is installed but the test cluster did not start: {error}")


def test_the_cluster_runs_a_batch_job(cluster, tmp_path):
    output = tmp_path / "job.out"
    submitted = cluster.run("sbatch", "--parsable", "--wait", f"--output={output}", "--wrap", "hostname -s", timeout=60)
    assert submitted.returncode == 0, submitted.stderr
    assert output.read_text().strip() == cluster.node


def test_slurm_run_equals_local_run_and_a_failed_job_is_reported_then_rerun(cluster, tmp_path):
    local = checkout(tmp_path / "local")
    ran_locally = snakemake(local, "--cores", "2")
    assert ran_locally.returncode == 0, ran_locally.stderr[-6000:]

    remote = checkout(tmp_path / "slurm")
    ran = through_slurm(remote, cluster)
    assert ran.returncode == 0, ran.stderr[-6000:] + cluster.log("slurmctld")[-3000:]
    submitted = [line for line in ran.stderr.splitlines() if "slurm jobid" in line.lower()]
    assert len(submitted) == len(TARGETS), "every computing job must be submitted to SLURM (drawings run locally)"
    assert_same_files(produced_files(local), produced_files(remote))

    script = remote / FAILING_SCRIPT
    original = script.read_text()
    script.write_text('raise SystemExit("injected failure of the ratio-table job")\n' + original)
    failed = through_slurm(remote, cluster, "--forcerun", "tl_ratio_table")
    assert failed.returncode != 0, "a failing SLURM job must fail the run"
    assert "Error in rule tl_ratio_table" in failed.stderr, failed.stderr[-6000:]
    assert "SLURM-job" in failed.stderr and "FAILED" in failed.stderr, failed.stderr[-6000:]
    assert not (remote / "results/quick/figures/truncated_laplace/ratio_table.csv").exists()

    script.write_text(original)
    rerun = through_slurm(remote, cluster)
    assert rerun.returncode == 0, rerun.stderr[-6000:] + cluster.log("slurmctld")[-3000:]
    assert sum("slurm jobid" in line.lower() for line in rerun.stderr.splitlines()) == 1, "only the failed job reruns"
    assert_same_files(produced_files(local), produced_files(remote))


def assert_same_files(local: dict[str, bytes], remote: dict[str, bytes]) -> None:
    assert sorted(local) == sorted(remote) and len(local) >= 3 * len(TARGETS)
    differing = [name for name in local if local[name] != remote[name]]
    assert not differing, f"outputs differ between the SLURM and the local run: {differing}"
