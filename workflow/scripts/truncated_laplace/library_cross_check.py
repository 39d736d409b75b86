from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import audits as tl

start(snakemake)
publish(snakemake, tl.library_cross_check(**snakemake.params.settings))
