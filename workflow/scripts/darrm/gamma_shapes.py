from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import analytic

start(snakemake)
data = analytic.gamma_shapes(**snakemake.params.figure, **snakemake.params.settings)
publish(snakemake, data, drawing={})
