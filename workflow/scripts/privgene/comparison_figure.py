import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import curves
from dpreplication.replications.privgene import comparison_figures as pgc
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
figure = snakemake.params.figure
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
settings = snakemake.params.settings
jobs = pgc.with_references(
    pd.concat(map(pd.read_csv, [*snakemake.input.jobs, *snakemake.input.get("extra", [])])),
    list(map(pd.read_csv, snakemake.input.references)),
    settings,
)
table = pgc.figure_table(figure, jobs)
_, value, label = pgc.FIGURES[figure]
figure = curves.value_against_epsilon(
    table,
    value,
    label,
    pgc.panel_titles(table, data),
    settings["kmeans"]["log_y"],
    pgc.REFERENCE_METHODS,
)
publish(snakemake, table, figure, ledger=ledger(jobs))
