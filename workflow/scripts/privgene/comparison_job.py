from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import jobs

start(snakemake)
w, settings, seed = snakemake.wildcards, snakemake.params.settings, snakemake.params.seed
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        jobs.run_job(data, jobs.comparison(w.task, method, **settings[method]), repetition, seed=seed)
        for method in settings
        for repetition in batch_repetitions(w.repetitions)
    ],
)
