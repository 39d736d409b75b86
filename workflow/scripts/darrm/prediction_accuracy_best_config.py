import json
from pathlib import Path

import numpy as np
import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction
from dpreplication.replications.darrm import teacher_ablation_choice as choice

start(snakemake)
settings = snakemake.params.settings
dataset = settings["ablation"]["dataset"]
status = json.loads(Path(snakemake.input.status).read_text())
files = cached = None
best = {}
if status["available"]:
    files = {Path(path).name: path for path in snakemake.input.idx}
    with np.load(snakemake.input.votes_nonprivate) as arrays:
        cached = {"nonprivate": dict(arrays)}
    with np.load(snakemake.input.best_votes) as arrays:
        best = dict(arrays)
table = pd.read_csv(snakemake.input.ablation)
accuracy, trained, releases = choice.best_configuration_accuracy(
    files, settings, table, best, cached, {dataset: status}, snakemake.params.seed
)
pd.DataFrame(trained).to_csv(snakemake.output.teachers, index=False)
publish(snakemake, accuracy, ledger=prediction.query_ledger_table(releases, release=("replicate", "draw")))
