import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import figures

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
publish(snakemake, figures.reference_levels(pd.concat(map(pd.read_csv, snakemake.input.jobs)), data))
