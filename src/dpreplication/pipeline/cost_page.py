"""Each rule's cost: measured, projected to the paper profile, and the page ``docs/costs.md`` that states it.

:func:`costs_markdown` writes the page (``make cluster-resources``), :func:`read_costs` reads its
per-rule table back; :func:`run_against_projection` and :func:`same_jobs_projection` hold a
paper-profile run against the projection. The scaling is :mod:`~dpreplication.pipeline.cluster_resources`'.
"""

from __future__ import annotations

import glob
import math
from pathlib import Path

import pandas as pd

from dpreplication.pipeline.jobs import batch_repetitions
from dpreplication.pipeline.measurements import BATCH, read_record
from dpreplication.pipeline.paper_plan import MAX_JOB_CPU_MINUTES, PAPER_UNMEASURED, paper_units_per_job


def rule_costs(table: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Each rule's measured jobs and CPU-minutes, and the paper profile's jobs, projected CPU-hours and largest job.

    ``table`` is :func:`~dpreplication.pipeline.cluster_resources.rule_resources`, ``paper``
    :func:`~dpreplication.pipeline.paper_plan.planned_work` of the paper profile. A paper unit
    (repetition or job) costs the measured mean CPU per unit times the rule's sample-size or grid
    ratio (:data:`~dpreplication.pipeline.paper_plan.PAPER_SAMPLE_SIZES`). A rule the paper dry run
    does not list (behind a checkpoint) keeps its measured jobs and units; :data:`PAPER_UNMEASURED`
    rules are not projected (NaN).
    The largest job (``paper_job_cpu_minutes``) and its basis (``largest_cpu_seconds_per_unit``, per
    repetition where ``batched``) are ``table``'s.
    """
    columns = ["rule", "jobs_measured", "exact_records", "units_measured", "cpu_seconds", "sample_ratio"]
    largest = ["batched", "largest_cpu_seconds_per_unit", "paper_job_cpu_minutes"]
    planned = table[[*columns, *largest]].merge(paper[["rule", "jobs", "units"]], on="rule", how="left")
    jobs = planned.jobs.fillna(planned.jobs_measured).astype(int)
    units = planned.units.fillna(planned.units_measured)
    cpu_seconds_per_unit = planned.cpu_seconds / planned.units_measured
    return pd.DataFrame(
        {
            "rule": planned.rule,
            "jobs": planned.jobs_measured,
            "exact_records": planned.exact_records,
            "cpu_minutes": planned.cpu_seconds / 60,
            "paper_jobs": jobs,
            "paper_cpu_hours": (cpu_seconds_per_unit * planned.sample_ratio * units / 3600).where(
                ~planned.rule.isin(PAPER_UNMEASURED)
            ),
            "batched": planned.batched,
            "largest_cpu_seconds_per_unit": planned.largest_cpu_seconds_per_unit,
            "paper_job_cpu_minutes": planned.paper_job_cpu_minutes,
        }
    )


def project_largest_jobs(
    basis: pd.DataFrame, repetitions_per_job: float, sample_ratios: dict[str, float], batch_sizes: dict[str, int]
) -> pd.DataFrame:
    """Project each rule's largest paper job from a committed basis, for the paper plan of now.

    ``basis`` is :func:`read_costs` of ``docs/costs.md`` (its rules' ``batched`` and
    ``largest_cpu_seconds_per_unit``, measured), ``batch_sizes``
    :func:`~dpreplication.pipeline.paper_plan.planned_batches` of the paper profile. The projection
    is :func:`~dpreplication.pipeline.cluster_resources.rule_resources`' for the same records; adds
    ``paper_job_cpu_minutes`` (NaN for :data:`PAPER_UNMEASURED`).
    """
    minutes = [
        math.nan
        if row.rule in PAPER_UNMEASURED
        else row.largest_cpu_seconds_per_unit
        * paper_units_per_job(row.rule, row.batched, repetitions_per_job, batch_sizes)
        * sample_ratios.get(row.rule, 1.0)
        / 60
        for row in basis.itertuples()
    ]
    return basis.assign(paper_job_cpu_minutes=minutes)


def run_against_projection(measured: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """Each rule of a paper-profile run: its measured CPU against the projection for the same work.

    ``measured`` is :func:`~dpreplication.pipeline.cluster_resources.rule_resources` of the measured
    profile's records, ``run`` of the paper-profile run's. The projection is :func:`rule_costs`' for the run's units: the measured mean CPU per unit times
    the rule's sample-size or grid ratio. ``error`` = measured / projected − 1; a rule the measured
    records lack, or of :data:`PAPER_UNMEASURED`, has no projection (NaN).
    """
    merged = run[["rule", "jobs_measured", "units_measured", "cpu_seconds", "exact_records"]].merge(
        measured[["rule", "units_measured", "cpu_seconds", "sample_ratio"]],
        on="rule",
        how="left",
        suffixes=("", "_profile"),
    )
    projected = (merged.cpu_seconds_profile / merged.units_measured_profile * merged.sample_ratio).where(
        ~merged.rule.isin(PAPER_UNMEASURED)
    ) * merged.units_measured
    return pd.DataFrame(
        {
            "rule": merged.rule,
            "jobs": merged.jobs_measured,
            "units": merged.units_measured,
            "exact_records": merged.exact_records,
            "cpu_seconds": merged.cpu_seconds,
            "projected_cpu_seconds": projected,
            "error": merged.cpu_seconds / projected - 1,
        }
    )


def same_jobs_projection(run: dict[str, list[str]], run_root: Path, measured_root: Path, ratios: dict) -> dict:
    """Each rule's CPU projected from the measured profile's records of the same jobs, times the sample ratio.

    A batched job is projected per repetition from the measured batches of the same wildcards (the same
    dataset and task), any other job from its own record. :func:`run_against_projection` projects from the
    rule's mean over all its jobs instead, which is right for the whole paper profile (the same mix of datasets
    and tasks) but not for a slice of one dataset. NaN where the measured profile has no such job.
    """
    projected = {}
    for rule, paths in run.items():
        total = 0.0
        for path in paths:
            relative, batch = Path(path).relative_to(run_root), BATCH.search(path)
            if batch:
                prefix = relative.name[: relative.name.index(batch.group(1))]
                siblings = sorted(glob.glob(str(measured_root / relative.parent / f"{prefix}*.tsv")))
                units = sum(len(batch_repetitions(BATCH.search(s).group(1))) for s in siblings)
                cpu = sum(float(read_record(s).cpu_time.sum()) for s in siblings)
                total += cpu / units * len(batch_repetitions(batch.group(1))) if units else math.nan
            else:
                own = measured_root / relative
                total += float(read_record(own).cpu_time.sum()) if own.is_file() else math.nan
        projected[rule] = math.nan if rule in PAPER_UNMEASURED else total * ratios.get(rule, 1.0)
    return projected


BASIS_UNITS = {True: "per repetition", False: "per job"}
"""How ``docs/costs.md`` states a rule's largest CPU per unit: per repetition (batched) or per job."""


def costs_markdown(costs: pd.DataFrame, records: str, profile: str) -> str:
    """Return :func:`rule_costs` as Markdown: per paper (the rules' prefix) and in all, then per rule.

    Beside the costs, each rule's largest paper job and its basis, which :func:`read_costs` reads back.
    """
    names = costs.rule.str.split("_").str[0]
    totals = ["jobs", "cpu_minutes", "paper_jobs", "paper_cpu_hours"]
    papers = costs[totals].groupby(names).sum(min_count=1)
    papers["paper_job_cpu_minutes"] = costs.paper_job_cpu_minutes.groupby(names).max()
    papers.loc["**all**"] = [*costs[totals].sum(), costs.paper_job_cpu_minutes.max()]
    header = [
        f"| {{}} | jobs | CPU-minutes ({profile}, measured) | paper jobs | paper CPU-hours (projected) | "
        "largest job: CPU-s per unit (measured) | largest paper job: CPU-minutes (projected) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def projected(value: float, digits: int) -> str:
        return "not projected" if pd.isna(value) else f"{value:.{digits}f}"

    def rows(table: pd.DataFrame) -> list[str]:
        return [
            f"| {name} | {r.jobs:.0f} | {r.cpu_minutes:.2f} | {r.paper_jobs:.0f} | {projected(r.paper_cpu_hours, 2)} | "
            + ("" if "batched" not in table else f"{r.largest_cpu_seconds_per_unit:.2f} {BASIS_UNITS[bool(r.batched)]}")
            + f" | {projected(r.paper_job_cpu_minutes, 2)} |"
            for name, r in zip(table.index, table.itertuples())
        ]

    largest = costs.loc[costs.paper_job_cpu_minutes.idxmax()] if costs.paper_job_cpu_minutes.notna().any() else None
    return (
        "\n".join(
            [
                f"# Cost of every rule: measured in the `{profile}` profile, projected to the `paper` profile",
                "",
                f"Generated by `python -m dpreplication.pipeline.cluster_resources` from `{records}` (`make cluster-resources`).",
                f"CPU time and peak memory are each job's exact record at exit ({costs.exact_records.sum():.0f} of "
                f"{costs.jobs.sum():.0f} jobs; the rest keep Snakemake's sampled benchmark, which under-counts).",
                "Rules without a `benchmark:` record (data fetching, scorecards) are not listed. Paper jobs are its",
                "dry run's; paper CPU-hours are the measured mean CPU per repetition (or per job) times the paper's",
                "repetitions (or jobs) and its sample-size or grid ratio (the module's docstring); not projected,",
                f"and left out of the totals: {', '.join(f'`{rule}`' for rule in PAPER_UNMEASURED)} (a finer grid).",
                "A rule's largest paper job is the largest CPU per repetition (or per job) of any of its records",
                "times the repetitions of its largest paper batch and the same ratio; no job may be projected over",
                f"{MAX_JOB_CPU_MINUTES:g} CPU-minutes (`tests/test_cluster_resources.py` holds the paper plan to it from",
                "the per-unit column)"
                + (
                    "."
                    if largest is None
                    else f": the largest is `{largest.rule}`'s, {largest.paper_job_cpu_minutes:.2f} CPU-minutes."
                ),
                "",
                header[0].format("paper"),
                header[1],
                *rows(papers),
                "",
                header[0].format("rule"),
                header[1],
                *rows(costs.set_index(costs.rule.map("`{}`".format))),
            ]
        )
        + "\n"
    )


def read_costs(path: str | Path) -> pd.DataFrame:
    """Read the per-rule table of a ``docs/costs.md`` that :func:`costs_markdown` wrote.

    One row per rule: ``rule``, ``jobs``, ``paper_jobs``, and, where the page states them,
    ``batched``, ``largest_cpu_seconds_per_unit`` and ``paper_job_cpu_minutes`` (NaN: not projected).
    """
    lines = Path(path).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| rule |"))
    columns = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = dict(zip(columns, (cell.strip() for cell in line.strip("|").split("|"))))
        row = {"rule": cells["rule"].strip("`"), "jobs": int(cells["jobs"]), "paper_jobs": int(cells["paper jobs"])}
        basis = cells.get("largest job: CPU-s per unit (measured)")
        if basis is not None:
            value, unit = basis.split(" ", 1)
            largest = cells["largest paper job: CPU-minutes (projected)"]
            row |= {
                "batched": unit == BASIS_UNITS[True],
                "largest_cpu_seconds_per_unit": float(value),
                "paper_job_cpu_minutes": math.nan if largest == "not projected" else float(largest),
            }
        rows.append(row)
    return pd.DataFrame(rows)
