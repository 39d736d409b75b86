from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
publish(snakemake, darrm.verified_numbers(**snakemake.params.settings, seed=snakemake.params.seed))
