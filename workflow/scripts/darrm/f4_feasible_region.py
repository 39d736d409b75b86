from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import noise_functions
from dpreplication.replications.darrm import analytic

start(snakemake)
data = analytic.figure4_feasible_region(**snakemake.params.settings)
publish(snakemake, data, noise_functions.feasible_region(data))
