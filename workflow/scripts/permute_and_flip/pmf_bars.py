from dpreplication.plotting import distributions
from dpreplication.replications import permute_and_flip_sampling as pf
from dpreplication.workflow import publish, start

start(snakemake)
data = pf.pmf_bars(**snakemake.params.settings, root_seed=snakemake.params.seed)
publish(snakemake, data, distributions.pmf_bars(data))
