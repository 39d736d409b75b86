import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import gupt_variants

start(snakemake)
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
table = gupt_variants.gupt_variants_summary(jobs, snakemake.params.settings["variants"])
publish(snakemake, table, drawing={}, ledger=gupt_variants.gupt_variants_ledger(jobs))
