from dpreplication.data import tabular
from dpreplication.replications import privgene_baseline_checks
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: privgene_baseline_checks.baseline_checks_job(
        data, repetition, seed=snakemake.params.seed, **snakemake.params.settings
    ),
)
