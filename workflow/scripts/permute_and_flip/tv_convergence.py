from dpreplication.plotting import distributions
from dpreplication.replications import permute_and_flip_sampling as pf
from dpreplication.workflow import publish, start

start(snakemake)
data = pf.tv_convergence(**snakemake.params.settings, root_seed=snakemake.params.seed)
publish(snakemake, data, distributions.tv_convergence(data))
