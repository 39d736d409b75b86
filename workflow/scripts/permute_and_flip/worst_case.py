from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.permute_and_flip import exact as pf

start(snakemake)
data = pf.worst_case(**snakemake.params.settings)
publish(snakemake, data, drawing={})
