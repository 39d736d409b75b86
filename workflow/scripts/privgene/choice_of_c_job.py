from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import start

start(snakemake)
w = snakemake.wildcards
frame = privgene.choice_of_c_job(
    tabular.load(snakemake.input.data),
    w.task,
    float(w.c),
    int(w.repetition),
    seed=snakemake.params.seed,
    **snakemake.params.settings,
)
frame.to_csv(snakemake.output[0], index=False)
