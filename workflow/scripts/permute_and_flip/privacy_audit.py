from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.permute_and_flip import exact as pf

start(snakemake)
publish(snakemake, pf.privacy_audit(**snakemake.params.settings, root_seed=snakemake.params.seed))
