from dpreplication.data import tabular
from dpreplication.replications import privgene_figures
from dpreplication.workflow import start

start(snakemake)
w = snakemake.wildcards
frame = privgene_figures.paper_r_job(
    tabular.load(snakemake.input.data),
    w.task,
    w.variant,
    int(w.repetition),
    seed=snakemake.params.seed,
    **snakemake.params.settings,
)
frame.to_csv(snakemake.output[0], index=False)
