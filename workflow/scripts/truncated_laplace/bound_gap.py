from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications.truncated_laplace import bounds as tl

start(snakemake)
data = tl.bound_gap(**snakemake.params.settings)
publish(snakemake, data, plots.bound_gap(data))
