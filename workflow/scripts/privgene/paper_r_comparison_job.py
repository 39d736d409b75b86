from dpreplication.data import tabular
from dpreplication.replications import privgene_comparison
from dpreplication.workflow import start

start(snakemake)
w = snakemake.wildcards
frame = privgene_comparison.paper_r_comparison_job(
    tabular.load(snakemake.input.data),
    w.task,
    int(w.repetition),
    seed=snakemake.params.seed,
    **snakemake.params.settings,
)
frame.to_csv(snakemake.output[0], index=False)
