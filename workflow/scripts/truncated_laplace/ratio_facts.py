from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import figures as tl

start(snakemake)
publish(snakemake, tl.ratio_facts(**snakemake.params.settings))
