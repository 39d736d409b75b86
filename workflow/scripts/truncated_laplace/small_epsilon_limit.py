from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications.truncated_laplace import figures as tl

start(snakemake)
data = tl.small_epsilon_limit(**snakemake.params.settings)
publish(snakemake, data, plots.small_epsilon_limit(data))
