import pandas as pd

from dpreplication.replications import privgene_comparison
from dpreplication.workflow import publish, start

start(snakemake)
jobs = pd.concat([pd.read_csv(path) for path in snakemake.input.jobs], ignore_index=True)
publish(snakemake, privgene_comparison.paper_r_summary(jobs))
