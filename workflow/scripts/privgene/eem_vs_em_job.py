from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import methods

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
variants = settings.pop("variants")
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, variant: methods.eem_vs_em_job(
        data, w.task, variant, repetition, seed=snakemake.params.seed, **settings
    ),
    variant=variants,
)
