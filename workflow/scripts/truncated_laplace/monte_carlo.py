from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import audits as tl
from dpreplication.seeding import generator

start(snakemake)
rng = generator(snakemake.params.seed, "truncated_laplace", "monte_carlo")
data = tl.monte_carlo_moments(rng, **snakemake.params.settings)
publish(snakemake, data, drawing={})
