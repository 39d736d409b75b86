from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import baseline_checks

start(snakemake)
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: baseline_checks.baseline_checks_job(
        data, repetition, seed=snakemake.params.seed, **snakemake.params.settings
    ),
)
