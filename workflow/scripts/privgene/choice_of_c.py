import pandas as pd

from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import curves
from dpreplication.replications.privgene import figures

start(snakemake)
settings = snakemake.params.settings
table = figures.choice_of_c(pd.concat(map(pd.read_csv, snakemake.input.jobs)), settings["reference_c"])
publish(snakemake, table, curves.ratio_against_c(table, settings["paper_c"], settings["reference_c"]))
publish(snakemake, figures.choice_of_c_summary(table, settings["paper_c"]), prefix="summary_")
