import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import comparison_figures as pgc
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
figure = snakemake.params.figure
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
settings = snakemake.params.settings
jobs = pd.concat(map(pd.read_csv, [*snakemake.input.jobs, *snakemake.input.get("extra", [])]))
if snakemake.input.references:  # Figs 3–4: NoPrivacy's rows of the reference jobs
    jobs = pgc.with_references(jobs, list(map(pd.read_csv, snakemake.input.references)), settings)
table = pgc.figure_table(figure, jobs)
_, value, label = pgc.FIGURES[figure]
drawing = {
    "value": value,
    "ylabel": label,
    "titles": pgc.panel_titles(table, data),
    "log_y": settings.get("log_y", []),
    "dashed": list(pgc.REFERENCE_METHODS),
}
publish(snakemake, table, drawing=drawing, ledger=ledger(jobs))
