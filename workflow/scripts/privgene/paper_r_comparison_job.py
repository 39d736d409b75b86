from dpreplication.data import tabular
from dpreplication.replications import privgene_comparison
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
settings = dict(snakemake.params.settings)
tasks = settings.pop("tasks")
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition, task: privgene_comparison.paper_r_comparison_job(
        data, task, repetition, seed=snakemake.params.seed, **settings
    ),
    task=tasks,
)
