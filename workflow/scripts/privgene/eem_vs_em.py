import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import figures
from dpreplication.replications.privgene.jobs import ledger

start(snakemake)
jobs = pd.concat(map(pd.read_csv, snakemake.input.jobs))
runs = pd.concat([jobs, *(pd.read_csv(path) for path in snakemake.input.paper_r)])
references = pd.concat(map(pd.read_csv, snakemake.input.references))
table = figures.eem_vs_em(runs, references)
releases = pd.concat([runs, references])
for prefix, figure, data in zip(("us_", "br_"), ("Fig. 6", "Fig. 7"), map(tabular.load, snakemake.input.data)):
    panel = table[table.dataset == data.name]
    title = figures.figure_title(figure, data, snakemake.params.settings["epsilon"])
    shown = releases[releases.dataset.eq(data.name) & releases.task.isin(panel.task)]
    publish(snakemake, panel, drawing={"title": title}, prefix=prefix, ledger=ledger(shown))
publish(snakemake, figures.eem_vs_em_summary(table, runs), prefix="summary_")
trace = figures.dampening_trace(jobs, snakemake.params.settings["algorithm"])
publish(snakemake, trace, drawing={}, prefix="trace_")
publish(snakemake, figures.dampening_summary(trace), prefix="deltas_")
