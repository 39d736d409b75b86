from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import verified

start(snakemake)
publish(snakemake, verified.verified_numbers(**snakemake.params.settings, seed=snakemake.params.seed))
