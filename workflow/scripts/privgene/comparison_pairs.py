import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import comparison_figures as pgc

start(snakemake)
jobs = pgc.with_references(
    pd.concat(map(pd.read_csv, [*snakemake.input.jobs, *snakemake.input.get("extra", [])])),
    list(map(pd.read_csv, snakemake.input.references)),
    snakemake.params.settings,
)
tables = pgc.pair_tables(jobs, pd.concat(map(pd.read_csv, snakemake.input.kmeans)))
for name, table in tables.items():
    publish(snakemake, table, prefix=f"{name}_")
