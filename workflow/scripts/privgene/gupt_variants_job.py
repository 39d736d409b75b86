from dpreplication.data import tabular
from dpreplication.pipeline.jobs import start
from dpreplication.replications.privgene import gupt_variants

start(snakemake)
settings = dict(snakemake.params.settings)
frame = gupt_variants.gupt_variants_job(
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
