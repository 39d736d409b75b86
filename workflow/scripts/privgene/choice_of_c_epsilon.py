import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import privgene_ablations as plots
from dpreplication.replications.privgene import ablations as privgene_ablations
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
settings = snakemake.params.settings
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
curves, summary = privgene_ablations.choice_of_c_by_epsilon(jobs, settings["reference_c"], settings["paper_c"])
figure = plots.pooled_ratio_against_c(curves, settings["paper_c"], settings["reference_c"])
publish(snakemake, summary, figure, ledger=ledger(jobs))
