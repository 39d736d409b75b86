from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import comparison

start(snakemake)
w, settings = snakemake.wildcards, snakemake.params.settings
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, method: comparison.kmeans_job(
        data, int(w.k), method, repetition, seed=snakemake.params.seed, **settings[method]
    ),
    method=list(settings),
)
