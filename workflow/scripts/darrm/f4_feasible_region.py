from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import analytic

start(snakemake)
data = analytic.figure4_feasible_region(**snakemake.params.settings)
publish(snakemake, data, drawing={})
