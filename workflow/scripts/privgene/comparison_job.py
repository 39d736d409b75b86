from dpreplication.data import tabular
from dpreplication.replications import privgene_comparison
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w, settings = snakemake.wildcards, snakemake.params.settings
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, method: privgene_comparison.comparison_job(
        data, w.task, method, repetition, seed=snakemake.params.seed, **settings[method]
    ),
    method=list(settings),
)
