from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications import truncated_laplace_bounds as tl
from dpreplication.workflow import publish, start

start(snakemake)
data = tl.bound_gap(**snakemake.params.settings)
publish(snakemake, data, plots.bound_gap(data))
