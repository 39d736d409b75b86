from dpreplication.data import tabular
from dpreplication.replications import privgene_figures
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w = snakemake.wildcards
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: privgene_figures.paper_r_job(
        data,
        w.task,
        w.variant,
        repetition,
        seed=snakemake.params.seed,
        **snakemake.params.settings,
    ),
)
