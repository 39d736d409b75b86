from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import figures

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
variants = settings.pop("paper_iteration_variants")
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, variant: figures.paper_r_job(
        data, w.task, variant, repetition, seed=snakemake.params.seed, **settings
    ),
    variant=variants,
)
