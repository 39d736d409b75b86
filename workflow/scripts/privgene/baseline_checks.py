import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import baseline_checks

start(snakemake)
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
comparison = pd.concat(map(pd.read_csv, snakemake.input.comparison), ignore_index=True)
references = pd.concat(map(pd.read_csv, snakemake.input.references), ignore_index=True)
sweep_epsilon = snakemake.params.settings["sweep_epsilon"]
table = baseline_checks.baseline_checks_table(jobs, comparison, references, sweep_epsilon=sweep_epsilon)
publish(snakemake, table, ledger=baseline_checks.baseline_checks_ledger(jobs))
