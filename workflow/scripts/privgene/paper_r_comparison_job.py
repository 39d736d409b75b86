from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import comparison

start(snakemake)
settings, seed = dict(snakemake.params.settings), snakemake.params.seed
tasks = settings.pop("tasks")
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        comparison.paper_r_comparison_job(data, task, repetition, seed=seed, **settings)
        for task in tasks
        for repetition in batch_repetitions(snakemake.wildcards.repetitions)
    ],
)
