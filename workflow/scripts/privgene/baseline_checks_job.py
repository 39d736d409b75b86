from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import baseline_checks

start(snakemake)
settings, seed = snakemake.params.settings, snakemake.params.seed
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        baseline_checks.baseline_checks_job(data, repetition, seed=seed, **settings)
        for repetition in batch_repetitions(snakemake.wildcards.repetitions)
    ],
)
