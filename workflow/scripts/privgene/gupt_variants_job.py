from dpreplication.data import tabular
from dpreplication.replications import privgene_gupt_variants
from dpreplication.workflow import start

start(snakemake)
settings = dict(snakemake.params.settings)
frame = privgene_gupt_variants.gupt_variants_job(
    tabular.load(snakemake.input.data),
    int(snakemake.wildcards.k),
    seed=snakemake.params.seed,
    runs=settings["runs"],
    epsilon=settings["epsilon"],
    variants=settings["variants"],
    algorithm=settings["algorithm"],
    restarts=settings["restarts"],
    max_iter=settings["max_iter"],
)
frame.to_csv(snakemake.output[0], index=False)
