import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import ablations as privgene_ablations
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
settings = snakemake.params.settings
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
curves, summary = privgene_ablations.choice_of_c_by_epsilon(jobs, settings["reference_c"], settings["paper_c"])
drawing = {"marked_c": settings["paper_c"], "reference_c": settings["reference_c"]}
publish(snakemake, summary, drawing=drawing, ledger=ledger(jobs))
publish(snakemake, curves, prefix="curves_")
