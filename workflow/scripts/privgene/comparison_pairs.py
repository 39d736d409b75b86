import pandas as pd

from dpreplication.pipeline import repetitions
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import comparison_figures as pgc

start(snakemake)
settings = snakemake.params.settings
jobs = pgc.with_references(
    pd.concat(map(pd.read_csv, [*snakemake.input.jobs, *snakemake.input.get("extra", [])])),
    list(map(pd.read_csv, snakemake.input.references)),
    settings,
)
looks = repetitions.looks(settings["second_stage"])
tables = pgc.pair_tables(jobs, pd.concat(map(pd.read_csv, snakemake.input.kmeans)), looks)
for name, table in tables.items():
    publish(snakemake, table, prefix=f"{name}_")
