from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import jobs

start(snakemake)
w, settings, seed = snakemake.wildcards, dict(snakemake.params.settings), snakemake.params.seed
variants = settings.pop("variants")
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        jobs.run_job(data, jobs.eem_vs_em(w.task, variant, **settings), repetition, seed=seed)
        for variant in variants
        for repetition in batch_repetitions(w.repetitions)
    ],
)
