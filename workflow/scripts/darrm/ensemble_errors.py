import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import analytic

start(snakemake)
shapes = pd.read_csv(snakemake.input.shapes)
data = analytic.ensemble_errors(
    shapes, seed=snakemake.params.seed, **snakemake.params.figure, **snakemake.params.settings
)
publish(snakemake, data, drawing={})
