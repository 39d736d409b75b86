import pandas as pd

from dpreplication.data import tabular
from dpreplication.plotting import curves
from dpreplication.replications import privgene_comparison_figures as pgc
from dpreplication.workflow import publish, start

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
tables = pgc.comparison_tables(
    pd.concat(map(pd.read_csv, snakemake.input.jobs)), pd.concat(map(pd.read_csv, snakemake.input.kmeans))
)
for prefix, (_, value, label) in pgc.FIGURES.items():
    figure = curves.value_against_epsilon(
        tables[prefix],
        value,
        label,
        pgc.panel_titles(tables[prefix], data),
        snakemake.params.settings["kmeans"]["log_y"],
        pgc.REFERENCE_METHODS,
    )
    publish(snakemake, tables[prefix], figure, prefix=prefix)
for prefix in ("pairs_", "summary_", "levels_"):
    publish(snakemake, tables[prefix], prefix=prefix)
