"""A slice of the paper profile, run end to end through a real single-node SLURM, against its projection.

The paper profile is meant for a cluster and its cost (``docs/costs.md``) is a projection from the
default profile's records. This runs one slice of it for real and states the projection's error:

- every truncated-Laplace rule and DaRRM's theory figures (F2-F10, the LP diagnostics, the verified
  numbers) at the paper profile's settings, with their drawings; TL's LP optimum is left out (its
  finer paper grid is not projected, ``PAPER_UNMEASURED``);
- PrivGene's Fig. 3 on Adult, logistic regression: the first ``--adult-batches`` of the paper plan's
  batches (50 of 10 repetitions; every method over the whole ε grid in each).

The jobs go through ``profiles/slurm`` to the cluster of ``tests/slurm_cluster.py`` (the one the
cluster test starts: needs root and Debian's ``slurm-wlm`` and ``munge``); each job's exact CPU
record lands in ``benchmarks/records/paper/``. Written afterwards:

- ``results/paper/slice_costs.csv`` and ``docs/paper_slice.md``: each rule's measured CPU against
  the projection for the same work from the measured profile's records
  (:func:`~dpreplication.pipeline.cost_page.run_against_projection`);
- ``results/paper/report.html``: the slice's published outputs, and the claims their tables judge.

Usage: ``.venv/bin/python benchmarks/paper_slice.py`` (``make paper-slice``), after ``make replicate``
has left the default profile's records.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from slurm_cluster import single_node_cluster  # noqa: E402

from dpreplication.pipeline.cluster_resources import rule_resources  # noqa: E402
from dpreplication.pipeline.cost_page import run_against_projection, same_jobs_projection  # noqa: E402
from dpreplication.pipeline.measurements import benchmark_records  # noqa: E402
from dpreplication.pipeline.paper_plan import paper_scales, planned_batches  # noqa: E402
from dpreplication.pipeline.report import ReportItem, build_report  # noqa: E402
from dpreplication.pipeline.snakefile import load_workflow  # noqa: E402
from dpreplication.scorecard import claims_on, evaluate_claims, load_registry  # noqa: E402

TREE = "paper"
THEORY_RULES = ("darrm_f", "darrm_lp_diagnostics", "darrm_verified_numbers", "tl_", "draw_truncated_laplace_")
LEFT_OUT = ("tl_lp_optimum", "draw_truncated_laplace_lp_optimum")
ADULT_LR = "results/paper/work/privgene/comparison/Adult/lr/reps{first}-{last}.csv"
STATUS_DELAY = 5  # seconds before the SLURM plugin's first status query (squeue keeps jobs 60 s)


def slice_targets(workflow, adult_batches: int, repetitions_per_job: int) -> list[str]:
    """The slice's Snakemake targets: the theory rules (by name) and Fig. 3's Adult LR batches (by file).

    ``repetitions_per_job``: the paper plan's batch of ``privgene_comparison_job``.
    """
    rules = sorted(
        rule.name
        for rule in workflow.rules
        if (rule.name.startswith(THEORY_RULES) or rule.name.startswith("draw_darrm_f")) and rule.name not in LEFT_OUT
    )
    batches = [
        ADULT_LR.format(first=start, last=start + repetitions_per_job - 1)
        for start in range(0, adult_batches * repetitions_per_job, repetitions_per_job)
    ]
    return rules + batches


def run_through_slurm(targets: list[str], jobs: int) -> tuple[float, float]:
    """Run the targets in the paper profile on a fresh single-node cluster; return (wall s, local CPU s).

    Local CPU is that of Snakemake and the local rules it ran itself (drawings, data); the cluster's
    jobs run under slurmd and are counted by their own records.
    """
    with tempfile.TemporaryDirectory(prefix="slurm-") as directory, single_node_cluster(Path(directory)) as cluster:
        environment = {**cluster.env, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        command = [
            sys.executable, "-m", "snakemake", *targets, "--config", f"profile={TREE}",
            "--profile", "profiles/slurm", "--jobs", str(jobs), "--slurm-no-account",
            "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", str(STATUS_DELAY),
        ]  # fmt: skip
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(command, cwd=REPO, env=environment, check=True)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def costs_page(costs: pd.DataFrame, wall: float, local_cpu: float, measured_records: Path, targets: list[str]) -> str:
    """The slice's costs as Markdown: per rule and in all, measured against projected."""
    total = costs[costs.projected_cpu_seconds.notna()][["cpu_seconds", "projected_cpu_seconds"]].sum()
    same = costs[costs.projected_same_jobs.notna()][["cpu_seconds", "projected_same_jobs"]].sum()
    lines = [
        "# A slice of the paper profile, run through SLURM, against its projection",
        "",
        "Generated by `benchmarks/paper_slice.py` (`make paper-slice`): the slice ran end to end through "
        "`profiles/slurm` on a real single-node SLURM (`tests/slurm_cluster.py`). Measured CPU is each job's "
        "exact record at exit; projected CPU is `docs/costs.md`'s projection for the same work, from "
        f"`{measured_records}` (`cost_page.run_against_projection`).",
        "",
        f"- Targets: {len(targets)} ({', '.join(f'`{t}`' for t in targets)}).",
        f"- Wall time {wall / 60:.1f} min; Snakemake and the local rules (drawings, data) {local_cpu / 60:.1f} CPU-min.",
        f"- Jobs' CPU, where projected: measured {total.cpu_seconds / 60:.2f} CPU-min, projected "
        f"{total.projected_cpu_seconds / 60:.2f}: error {total.cpu_seconds / total.projected_cpu_seconds - 1:+.1%} "
        "(measured / projected − 1).",
        f"- Projected instead from the measured records of the same jobs (a batched job: the same dataset and task, "
        f"per repetition; `same_jobs_projection`): {same.projected_same_jobs / 60:.2f} CPU-min, error "
        f"{same.cpu_seconds / same.projected_same_jobs - 1:+.1%}. `docs/costs.md` projects each rule from its mean "
        "over all its jobs: right for the whole paper profile, which runs the same mix of datasets and tasks, "
        "but not for a slice of one dataset.",
        "",
        "| rule | jobs | units | exact records | CPU-min measured | CPU-min projected | error | "
        "CPU-min projected, same jobs | error |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in costs.itertuples():
        projected = "not projected" if pd.isna(row.projected_cpu_seconds) else f"{row.projected_cpu_seconds / 60:.2f}"
        error = "" if pd.isna(row.error) else f"{row.error:+.0%}"
        same_jobs = "" if pd.isna(row.projected_same_jobs) else f"{row.projected_same_jobs / 60:.2f}"
        same_error = "" if pd.isna(row.projected_same_jobs) else f"{row.cpu_seconds / row.projected_same_jobs - 1:+.0%}"
        lines.append(
            f"| `{row.rule}` | {row.jobs} | {row.units} | {row.exact_records} | {row.cpu_seconds / 60:.2f} | "
            f"{projected} | {error} | {same_jobs} | {same_error} |"
        )
    return "\n".join(lines) + "\n"


def slice_report(workflow, costs_markdown: str) -> tuple[str, int, int]:
    """The report of the slice's published outputs and the claims their tables judge; (HTML, items, claims)."""
    items = [
        ReportItem(i["paper"], i["name"], Path(i["path"]), Path(i["caption"]), i["sidecar"] and Path(i["sidecar"]))
        for i in workflow.globals["REPORT_ITEMS"]
        if Path(REPO, i["path"]).is_file()
    ]
    rows, left_out = [], 0
    for paper, tables in workflow.globals["CLAIM_TABLES"].items():
        present = {name: pd.read_csv(REPO / path) for name, path in tables.items() if Path(REPO, path).is_file()}
        claims = load_registry(REPO / f"workflow/claims/{paper}.yaml")
        judged = claims_on(claims, present)
        left_out += len(claims) - len(judged)
        if judged:
            rows.append(evaluate_claims(judged, present))
    scorecard = pd.concat(rows, ignore_index=True)
    preface = (
        f"<p><strong>A slice of the paper profile</strong>, run through SLURM: {len(items)} published outputs; "
        f"the scorecard judges the {len(scorecard)} claims whose tables the slice computed ({left_out} others are "
        f"not judged here).</p><pre>{html.escape(costs_markdown)}</pre>"
    )
    return build_report(items, scorecard, f"{TREE}, slice", preface), len(items), len(scorecard)


def main(argv: list[str] | None = None) -> int:
    """Run the slice, then write its costs against the projection and its report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measured-records", type=Path, default=Path("benchmarks/records/default"))
    parser.add_argument("--adult-batches", type=int, default=4, help="of the paper plan's 50 (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--no-run", action="store_true", help="tabulate the last run's records again")
    arguments = parser.parse_args(argv)
    os.chdir(REPO)
    workflow = load_workflow(REPO / "Snakefile", {"profile": TREE})
    repetitions, ratios = paper_scales(REPO)
    batches = planned_batches(REPO / "Snakefile", TREE)
    targets = slice_targets(workflow, arguments.adult_batches, batches["privgene_comparison_job"])
    run_file = Path(f"results/{TREE}/slice_run.json")
    if not arguments.no_run:
        wall, local_cpu = run_through_slurm(targets, arguments.jobs)
        run_file.write_text(json.dumps({"wall_seconds": wall, "local_cpu_seconds": local_cpu}) + "\n")
    wall, local_cpu = json.loads(run_file.read_text()).values()
    measured = rule_resources(benchmark_records(workflow, arguments.measured_records), repetitions, ratios, batches)
    run_records = benchmark_records(workflow, Path("benchmarks/records") / TREE)
    run = rule_resources(run_records, repetitions, ratios, batches)
    same = same_jobs_projection(run_records, Path("benchmarks/records") / TREE, arguments.measured_records, ratios)
    costs = run_against_projection(measured, run).assign(projected_same_jobs=lambda t: t.rule.map(same))
    costs.to_csv(f"results/{TREE}/slice_costs.csv", index=False)
    page = costs_page(costs, wall, local_cpu, arguments.measured_records, targets)
    Path("docs/paper_slice.md").write_text(page)
    report, items, claims = slice_report(workflow, page)
    Path(f"results/{TREE}/report.html").write_text(report)
    print(page)
    print(f"results/{TREE}/report.html: {items} outputs, {claims} claims judged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
