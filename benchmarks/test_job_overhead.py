"""Per-job fixed cost of the PrivGene job rules against the CPU their jobs spend (issue 16).

A job rule's script runs in a fresh Python process: the interpreter, Snakemake's script preamble
and the script's own imports are paid once per job, whatever the job computes. This benchmark
times that fixed cost (a process that only imports what the script imports) and divides it by the
median CPU time of the rule's jobs, read from the Snakemake ``benchmark:`` records of a finished run
(``benchmarks/records/<profile>/privgene/<rule>/…``; run ``make replicate`` or ``make quick`` first).
Budget: at most 10 % per rule. Select the run with ``DPREPLICATION_BENCHMARK_TREE`` (default
``default``).
"""

from __future__ import annotations

import ast
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
TREE = os.environ.get("DPREPLICATION_BENCHMARK_TREE", "default")
RECORDS = ROOT / "benchmarks" / "records" / TREE / "privgene"
SCRIPTS = ROOT / "workflow" / "scripts" / "privgene"
BUDGET = 0.10
JOB_RULES = {
    # benchmark directory: (the rule's script, its records' file pattern)
    "choice_of_c": ("choice_of_c_job.py", "reps*.tsv"),
    "eem_vs_em": ("eem_vs_em_job.py", "reps*.tsv"),
    "eem_vs_em_paper_r": ("paper_r_job.py", "reps*.tsv"),
    "reference": ("reference_job.py", "reps*.tsv"),
    "comparison": ("comparison_job.py", "reps*.tsv"),
    "kmeans": ("kmeans_job.py", "runs*.tsv"),
    "comparison_paper_r": ("paper_r_comparison_job.py", "reps*.tsv"),
    "schedule_ablation": ("schedule_ablation_job.py", "reps*.tsv"),
    "choice_of_c_epsilon": ("choice_of_c_epsilon_job.py", "reps*.tsv"),
    "gupt_variants": ("gupt_variants_job.py", "k*.tsv"),
}


def script_imports(script: Path) -> str:
    """The script's top-level import statements, after Snakemake's own script module."""
    tree = ast.parse(script.read_text())
    imports = [ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    return "\n".join(["import snakemake.script", *imports])


def fixed_cost_seconds(script: Path, rounds: int = 3) -> float:
    """Median CPU time (user + system, as the records' ``cpu_time``) of a fresh interpreter that
    only imports what ``script`` imports."""
    code = script_imports(script)
    times = []
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return sorted(times)[len(times) // 2]


def job_cpu_seconds(rule_directory: str, pattern: str) -> pd.Series:
    """CPU seconds (user + system) of each recorded job of one rule."""
    records = sorted((RECORDS / rule_directory).rglob(pattern))
    return pd.Series([pd.read_csv(path, sep="\t").cpu_time.iloc[0] for path in records], dtype=float)


@pytest.mark.parametrize("rule_directory", sorted(JOB_RULES))
def test_fixed_cost_share(benchmark, rule_directory):
    script, pattern = JOB_RULES[rule_directory]
    cpu = job_cpu_seconds(rule_directory, pattern)
    if cpu.empty:
        pytest.skip(f"no benchmark records under {RECORDS / rule_directory}: run the {TREE} profile first")
    fixed = benchmark.pedantic(fixed_cost_seconds, args=(SCRIPTS / script,), rounds=1, iterations=1)
    share = fixed / float(cpu.median())
    benchmark.extra_info.update(
        tree=TREE, jobs=int(cpu.size), median_job_cpu_seconds=float(cpu.median()), fixed_seconds=fixed, share=share
    )
    assert share <= BUDGET, (
        f"{rule_directory}: fixed cost {fixed:.2f} s is {share:.0%} of a job's median CPU {cpu.median():.2f} s"
    )


STARTUP_BUDGET_S = 0.3
"""A drawing job's start-up (interpreter, Snakemake's script module, the job's logging and input
checks' imports) before it reads its CSV: issue 36. matplotlib and pandas load on first use."""


def test_a_drawing_job_starts_within_its_budget(benchmark):
    script = ROOT / "workflow" / "scripts" / "draw.py"
    startup = benchmark.pedantic(fixed_cost_seconds, args=(script,), rounds=1, iterations=1)
    records = sorted((ROOT / "benchmarks" / "records" / TREE).glob("*/draw/*.usage.json"))
    jobs = pd.Series([json.loads(path.read_text())["cpu_s"] for path in records], dtype=float)
    benchmark.extra_info.update(
        tree=TREE,
        startup_cpu_seconds=startup,
        drawing_jobs=int(jobs.size),
        median_drawing_job_cpu_seconds=float(jobs.median()) if jobs.size else None,
    )
    assert startup <= STARTUP_BUDGET_S, f"draw.py starts in {startup:.2f} CPU-s > {STARTUP_BUDGET_S}"
