import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction

start(snakemake)
data = prediction.gnmax_variance_table(pd.read_csv(snakemake.input.privacy), **snakemake.params.settings)
publish(snakemake, data, drawing={})
