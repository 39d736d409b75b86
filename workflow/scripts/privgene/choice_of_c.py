import pandas as pd

from dpreplication.plotting import curves
from dpreplication.replications import privgene_figures
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
table = privgene_figures.choice_of_c(pd.concat(map(pd.read_csv, snakemake.input.jobs)), settings["reference_c"])
publish(snakemake, table, curves.ratio_against_c(table, settings["paper_c"], settings["reference_c"]))
publish(snakemake, privgene_figures.choice_of_c_summary(table, settings["paper_c"]), prefix="summary_")
