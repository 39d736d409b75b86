from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.permute_and_flip import sampling as pf

start(snakemake)
data = pf.tv_convergence(**snakemake.params.settings, root_seed=snakemake.params.seed)
publish(snakemake, data, drawing={})
