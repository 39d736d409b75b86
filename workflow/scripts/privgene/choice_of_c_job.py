from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import jobs

start(snakemake)
w, settings, seed = snakemake.wildcards, snakemake.params.settings, snakemake.params.seed
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        jobs.run_job(data, jobs.choice_of_c(w.task, **settings), repetition, seed=seed)
        for repetition in batch_repetitions(w.repetitions)
    ],
)
