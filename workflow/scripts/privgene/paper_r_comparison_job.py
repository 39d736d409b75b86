from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import comparison

start(snakemake)
settings = dict(snakemake.params.settings)
tasks = settings.pop("tasks")
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, task: comparison.paper_r_comparison_job(
        data, task, repetition, seed=snakemake.params.seed, **settings
    ),
    task=tasks,
)
