import json
from pathlib import Path

import numpy as np
import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import teacher_ablation as ablation
from dpreplication.replications.darrm import teacher_ablation_choice as choice
from dpreplication.replications.darrm.prediction import needs_download

start(snakemake)
settings = snakemake.params.settings
dataset = settings["ablation"]["dataset"]
status = json.loads(Path(snakemake.input.status).read_text())
trained = cached = None
best = {}
if status["available"]:
    cached, trained = {}, {}
    for kind in ("private", "nonprivate"):
        with np.load(snakemake.input[f"votes_{kind}"]) as arrays:
            cached[kind] = dict(arrays)
    for config in settings["ablation"]["configs"]:
        with np.load(snakemake.input[f"votes_{config['name']}"]) as arrays:
            trained[config["name"]] = (dict(arrays), pd.read_csv(snakemake.input[f"teachers_{config['name']}"]))
table = choice.ablation_table(trained, settings, cached, snakemake.params.seed, needs_download(dataset, status))
if trained is not None:
    best = trained[table.loc[table.best.astype(bool), "config"].item()][0]
np.savez_compressed(snakemake.output.votes, **best)
publish(snakemake, table, ledger=ablation.ablation_ledger(trained))
