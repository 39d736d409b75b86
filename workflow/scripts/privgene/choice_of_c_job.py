from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w = snakemake.wildcards
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: privgene.choice_of_c_job(
        data,
        w.task,
        float(w.c),
        repetition,
        seed=snakemake.params.seed,
        **snakemake.params.settings,
    ),
)
