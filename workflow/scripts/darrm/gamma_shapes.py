from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import noise_functions
from dpreplication.replications.darrm import analytic

start(snakemake)
data = analytic.gamma_shapes(**snakemake.params.figure, **snakemake.params.settings)
publish(snakemake, data, noise_functions.gamma_shapes(data))
