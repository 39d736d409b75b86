from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import bounds as tl

start(snakemake)
publish(snakemake, tl.bound_kinks(**snakemake.params.settings))
