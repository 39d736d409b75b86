from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import figures

start(snakemake)
w, settings, seed = snakemake.wildcards, dict(snakemake.params.settings), snakemake.params.seed
variants = settings.pop("paper_iteration_variants")
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        figures.paper_r_job(data, w.task, variant, repetition, seed=seed, **settings)
        for variant in variants
        for repetition in batch_repetitions(w.repetitions)
    ],
)
