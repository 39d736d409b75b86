import dataclasses

import pandas as pd

from dpreplication.pipeline import repetitions
from dpreplication.pipeline.jobs import start
from dpreplication.replications.privgene import comparison_figures as pgc
from dpreplication.scorecard import evaluate_claims, load_registry

logger = start(snakemake)
settings = snakemake.params.settings
looks = repetitions.looks(settings)
jobs = pgc.with_references(
    pd.concat(map(pd.read_csv, snakemake.input.jobs)), list(map(pd.read_csv, snakemake.input.references)), settings
)
runs = [pgc.comparison_runs(jobs[jobs.task == task]) for task in ("lr", "svm")]
pairs = pd.concat([pgc.paired_differences(task_runs, looks=looks) for task_runs in runs])
means = pd.concat([pgc.mean_differences(task_runs, looks=looks) for task_runs in runs])
tables = {"comparison_pairs": pairs, "comparison_summary": pgc.pair_summary(pairs, means)}
claims = [
    dataclasses.replace(claim, deviation=None)  # only the first-stage statuses matter here
    for claim in load_registry(snakemake.input.registry)
    if claim.table in tables and set(claim.select) >= {"dataset", "task"} and claim.select["task"] in ("lr", "svm")
]
cells = repetitions.open_cells(
    claims,
    evaluate_claims(claims, tables),
    pairs,
    tables["comparison_summary"],
    settings["folds"],
    settings["max_repetitions"],
)
chosen = repetitions.plan(cells, settings["repetitions"], settings["budget_cpu_seconds"], settings["cpu_seconds"])
chosen.to_csv(snakemake.output[0], index=False)
logger.info(
    "%d inconclusive pair claims open %d cells; funded %d claims, %d cells, %d extra cell-repetitions",
    cells.claim.nunique(),
    len(cells),
    len({c for cs in chosen.claims for c in cs.split(";")}),
    len(chosen),
    int((chosen.repetitions - settings["repetitions"]).sum()),
)
