from pathlib import Path

import numpy as np
import pandas as pd

from dpreplication.pipeline.jobs import start
from dpreplication.replications.darrm import teacher_ablation as ablation

start(snakemake)
settings = snakemake.params.settings
files = {Path(path).name: path for path in snakemake.input.idx}
(config,) = settings["ablation"]["configs"]
_, arrays, rows = ablation.configuration_votes(files, settings, config, snakemake.params.seed, snakemake.threads)
np.savez_compressed(snakemake.output.votes, **arrays)
pd.DataFrame(rows).to_csv(snakemake.output.teachers, index=False)
