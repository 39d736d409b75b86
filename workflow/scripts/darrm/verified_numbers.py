from dpreplication.replications import darrm_verified
from dpreplication.workflow import publish, start

start(snakemake)
publish(snakemake, darrm_verified.verified_numbers(**snakemake.params.settings, seed=snakemake.params.seed))
