import pandas as pd

from dpreplication.data import tabular
from dpreplication.replications import privgene_figures
from dpreplication.workflow import publish, start

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
publish(snakemake, privgene_figures.reference_levels(pd.concat(map(pd.read_csv, snakemake.input.jobs)), data))
