from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import figures as tl

start(snakemake)
data = tl.small_epsilon_limit(**snakemake.params.settings)
publish(snakemake, data, drawing={})
