import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import figures, jobs

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
runs = pd.concat(map(pd.read_csv, snakemake.input.jobs))
publish(snakemake, figures.reference_levels(runs, data), ledger=jobs.ledger(runs))
