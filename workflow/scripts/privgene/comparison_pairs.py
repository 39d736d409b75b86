import pandas as pd

from dpreplication.replications import privgene_comparison_figures as pgc
from dpreplication.workflow import publish, start

start(snakemake)
jobs = pgc.with_references(
    pd.concat(map(pd.read_csv, [*snakemake.input.jobs, *snakemake.input.get("extra", [])])),
    list(map(pd.read_csv, snakemake.input.references)),
    snakemake.params.settings,
)
tables = pgc.pair_tables(jobs, pd.concat(map(pd.read_csv, snakemake.input.kmeans)))
for name, table in tables.items():
    publish(snakemake, table, prefix=f"{name}_")
