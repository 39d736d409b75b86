from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w = snakemake.wildcards
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: privgene.eem_vs_em_job(
        data,
        w.task,
        w.variant,
        repetition,
        seed=snakemake.params.seed,
        **snakemake.params.settings,
    ),
)
