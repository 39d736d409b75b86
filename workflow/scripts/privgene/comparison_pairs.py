import pandas as pd

from dpreplication.replications import privgene_comparison_figures as pgc
from dpreplication.workflow import publish, start

start(snakemake)
tables = pgc.pair_tables(
    pd.concat(map(pd.read_csv, snakemake.input.jobs)), pd.concat(map(pd.read_csv, snakemake.input.kmeans))
)
for name, table in tables.items():
    publish(snakemake, table, prefix=f"{name}_")
