from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications.truncated_laplace import bounds as tl

start(snakemake)
data = tl.lp_optimum(**snakemake.params.settings)
publish(snakemake, data, plots.lp_optimum(data))
