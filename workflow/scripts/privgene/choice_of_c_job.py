from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import methods

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
c_grid = settings.pop("c_grid")
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, c: methods.choice_of_c_job(data, w.task, c, repetition, seed=snakemake.params.seed, **settings),
    c=c_grid,
)
