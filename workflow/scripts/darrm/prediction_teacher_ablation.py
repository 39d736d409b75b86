import json
from pathlib import Path

import numpy as np

from dpreplication.replications import darrm_teacher_ablation as ablation
from dpreplication.replications.darrm_prediction import needs_download
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
dataset = settings["ablation"]["dataset"]
status = json.loads(Path(snakemake.input.status).read_text())
files = cached = None
if status["available"]:
    files = {Path(path).name: path for path in snakemake.input.idx}
    cached = {}
    for kind in ("private", "nonprivate"):
        with np.load(snakemake.input[f"votes_{kind}"]) as arrays:
            cached[kind] = dict(arrays)
table, per_teacher, votes = ablation.ablation_table(
    files, settings, cached, snakemake.params.seed, needs_download(dataset, status), snakemake.threads
)
np.savez_compressed(snakemake.output.votes, **votes)
per_teacher.to_csv(snakemake.output.teachers, index=False)
publish(snakemake, table)
