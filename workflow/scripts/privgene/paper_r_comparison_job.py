from dpreplication.data import tabular
from dpreplication.replications import privgene_comparison
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w = snakemake.wildcards
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: privgene_comparison.paper_r_comparison_job(
        data,
        w.task,
        repetition,
        seed=snakemake.params.seed,
        **snakemake.params.settings,
    ),
)
