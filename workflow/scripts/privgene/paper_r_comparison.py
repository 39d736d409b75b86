import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import comparison
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
jobs = pd.concat([pd.read_csv(path) for path in snakemake.input.jobs], ignore_index=True)
publish(snakemake, comparison.paper_r_summary(jobs), ledger=ledger(jobs))
