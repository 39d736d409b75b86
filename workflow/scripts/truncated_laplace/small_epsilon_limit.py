from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications import truncated_laplace as tl
from dpreplication.workflow import publish, start

start(snakemake)
data = tl.small_epsilon_limit(**snakemake.params.settings)
publish(snakemake, data, plots.small_epsilon_limit(data))
