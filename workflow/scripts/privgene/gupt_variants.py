import pandas as pd

from dpreplication.plotting import privgene_ablations as plots
from dpreplication.replications import privgene_gupt_variants
from dpreplication.workflow import publish, start

start(snakemake)
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs), ignore_index=True)
table = privgene_gupt_variants.gupt_variants_summary(jobs, snakemake.params.settings["variants"])
publish(snakemake, table, plots.gupt_variant_bars(table))
