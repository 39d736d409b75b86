from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications import truncated_laplace_audits as tl
from dpreplication.seeding import generator
from dpreplication.workflow import publish, start

start(snakemake)
rng = generator(snakemake.params.seed, "truncated_laplace", "monte_carlo")
data = tl.monte_carlo_moments(rng, **snakemake.params.settings)
publish(snakemake, data, plots.monte_carlo_moments(data))
