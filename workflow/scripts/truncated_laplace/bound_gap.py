from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import bounds as tl

start(snakemake)
data = tl.bound_gap(**snakemake.params.settings)
publish(snakemake, data, drawing={})
