import pandas as pd

from dpreplication.plotting import privgene_ablations as plots
from dpreplication.replications import privgene_ablations
from dpreplication.workflow import publish, start

start(snakemake)
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
table = privgene_ablations.schedule_ablation_summary(jobs)
publish(snakemake, table, plots.schedule_points(table))
