from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import start

start(snakemake)
w = snakemake.wildcards
frame = privgene.eem_vs_em_job(
    tabular.load(snakemake.input.data),
    w.task,
    w.variant,
    int(w.repetition),
    seed=snakemake.params.seed,
    **snakemake.params.settings,
)
frame.to_csv(snakemake.output[0], index=False)
