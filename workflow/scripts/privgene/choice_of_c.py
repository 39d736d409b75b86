import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import figures, jobs

start(snakemake)
settings = snakemake.params.settings
runs = pd.concat(map(pd.read_csv, snakemake.input.jobs))
table = figures.choice_of_c(runs, settings["reference_c"])
drawing = {"marked_c": settings["paper_c"], "reference_c": settings["reference_c"]}
publish(snakemake, table, drawing=drawing, ledger=jobs.ledger(runs))
publish(snakemake, figures.choice_of_c_summary(table, settings["paper_c"]), prefix="summary_")
