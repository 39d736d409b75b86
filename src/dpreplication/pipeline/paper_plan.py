"""The paper profile's plan: its sample sizes against the measured profile's, its jobs and batches, its bound.

What scales a measured job to the paper profile (:mod:`~dpreplication.pipeline.cluster_resources`
states the rule), computed from the two configurations and the paper profile's dry run, never typed.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

from dpreplication.pipeline.config import profile_config
from dpreplication.pipeline.jobs import batch_repetitions
from dpreplication.pipeline.measurements import BATCH

MAX_JOB_CPU_MINUTES = 10.0
"""No paper-profile job may be projected over this many CPU-minutes: the run waits on its longest job."""
PAPER_SAMPLE_SIZES = {
    # rule: the config key (section/…/key) whose value (a count, or a list: its length) sets the
    # rule's amount of work per job, or per repetition for a batched rule
    "pf_pmf_bars": "permute_and_flip/pmf_bars/n",
    "pf_lemma_chain": "permute_and_flip/lemma_chain/n",
    "pf_lemma_internals": "permute_and_flip/lemma_internals/n",
    "pf_privacy_audit": "permute_and_flip/privacy_audit/pairs",
    "tl_monte_carlo": "truncated_laplace/monte_carlo/n_samples",
    "tl_privacy_audit": "truncated_laplace/privacy_audit/n_points",
    # one job per configuration (or for the best one) trains every seed replicate's teachers
    "darrm_prediction_teacher_ablation_config": "darrm/teacher_ablation/seeds",
    "darrm_prediction_accuracy_best_config": "darrm/teacher_ablation/seeds",
}
PAPER_UNMEASURED = ("tl_lp_optimum",)
"""Rules whose paper settings change the work in a way no sample ratio measures (a finer LP grid):
they keep the profile's ``default-resources``."""


def _config_size(config: dict, key: str) -> float:
    """Return the value of ``key`` (``section/…/key``) in ``config``: a count, or a list's length."""
    for part in key.split("/"):
        config = config[part]
    return len(config) if isinstance(config, list) else config


def paper_scales(
    checkout: Path, paper_profile: str = "paper", measured_profile: str = "default"
) -> tuple[float, dict[str, float]]:
    """Return the paper profile's repetitions per job and the rules' paper-to-measured sample-size ratios.

    There is one ratio per :data:`PAPER_SAMPLE_SIZES` rule: its paper sample size over its measured
    one. Both come from the two profiles' whole configurations.
    """
    paper, measured = profile_config(paper_profile, checkout), profile_config(measured_profile, checkout)
    ratios = {rule: _config_size(paper, k) / _config_size(measured, k) for rule, k in PAPER_SAMPLE_SIZES.items()}
    return float(paper["privgene"]["repetitions_per_job"]), ratios


def paper_units_per_job(rule: str, batched: bool, repetitions_per_job: float, batch_sizes: dict | None) -> float:
    """Return the units of work of ``rule``'s largest paper job: its largest planned batch, or 1 job.

    ``batch_sizes`` is :func:`planned_batches`' (the paper dry run's); a batched rule it does not
    list (behind a checkpoint) runs ``repetitions_per_job``.
    """
    if not batched:
        return 1.0
    return float((batch_sizes or {}).get(rule, repetitions_per_job))


def _snakemake(snakefile: Path, profile: str, *arguments: str) -> str:
    """Run Snakemake on everything of ``profile`` without executing a job; return its output."""
    command = [sys.executable, "-m", "snakemake", *arguments, "--cores", "1", "--snakefile", str(snakefile)]
    return subprocess.run(
        [*command, "--config", f"profile={profile}"],
        cwd=Path(snakefile).resolve().parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def planned_jobs(snakefile: Path, profile: str) -> dict[str, int]:
    """Return each rule's job count in a dry run of ``profile``'s whole DAG (``--forceall``).

    Jobs behind a checkpoint that has not run are not listed.
    """
    stats = _snakemake(snakefile, profile, "-n", "--forceall", "--quiet", "rules").split("Job stats:")[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M) if m.group(1) != "total"}


def _planned_batch_sizes(snakefile: Path, profile: str) -> dict[str, list[int]]:
    """Return the repetitions of each batched output of every rule ``profile`` plans (``--summary``)."""
    sizes: dict[str, list[int]] = {}
    for line in _snakemake(snakefile, profile, "--summary").splitlines()[1:]:
        path, _, rule, *_ = line.split("\t")
        batch = BATCH.search(path)
        if batch:
            sizes.setdefault(rule, []).append(len(batch_repetitions(batch.group(1))))
    return sizes


def planned_batches(snakefile: Path, profile: str) -> dict[str, int]:
    """Return each batched rule's largest planned batch (repetitions in one job) in ``profile``.

    One Snakemake call (``--summary``, about 4 s for the paper profile); rules behind a checkpoint
    that has not run are not listed.
    """
    return {rule: max(sizes) for rule, sizes in _planned_batch_sizes(snakefile, profile).items()}


def planned_work(snakefile: Path, profile: str) -> pd.DataFrame:
    """Return each rule's planned ``jobs``, ``units`` of work and ``largest_batch`` in ``profile``.

    Jobs come from :func:`planned_jobs`, units are repetitions (the batch labels of a batched
    rule's outputs, from ``--summary``) or jobs; ``largest_batch`` is a batched rule's largest
    batch (NaN for any other rule).
    """
    jobs = planned_jobs(snakefile, profile)
    sizes = _planned_batch_sizes(snakefile, profile)
    return pd.DataFrame(
        [
            {
                "rule": rule,
                "jobs": count,
                "units": sum(sizes.get(rule, [])) or count,
                "largest_batch": max(sizes[rule]) if rule in sizes else math.nan,
            }
            for rule, count in jobs.items()
        ]
    )


def over_bound(costs: pd.DataFrame, minutes: float = MAX_JOB_CPU_MINUTES) -> pd.DataFrame:
    """Return the rules of ``costs`` (or a resources table) whose largest paper job is projected over ``minutes``.

    ``costs`` is :func:`~dpreplication.pipeline.cost_page.rule_costs`' or
    :func:`~dpreplication.pipeline.cluster_resources.rule_resources`'.
    """
    return costs[costs.paper_job_cpu_minutes > minutes]
