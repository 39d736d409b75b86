import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import ablations as privgene_ablations
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
table = privgene_ablations.schedule_ablation_summary(jobs)
publish(snakemake, table, drawing={}, ledger=ledger(jobs))
