from pathlib import Path

import numpy as np

from dpreplication.pipeline.jobs import start
from dpreplication.replications.darrm import teachers as darrm_teachers

start(snakemake)
files = {Path(path).name: path for path in snakemake.input.idx}
arrays, teachers = darrm_teachers.teacher_votes(
    files,
    snakemake.wildcards.dataset,
    snakemake.wildcards.kind,
    snakemake.params.settings,
    snakemake.params.seed,
    snakemake.threads,
    int(snakemake.wildcards.get("replicate", 0)),
)
np.savez_compressed(snakemake.output.votes, **arrays)
teachers.to_csv(snakemake.output.teachers, index=False)
