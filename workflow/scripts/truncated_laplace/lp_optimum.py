from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import bounds as tl

start(snakemake)
data = tl.lp_optimum(**snakemake.params.settings)
publish(snakemake, data, drawing={})
