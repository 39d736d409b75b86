from dpreplication.replications import truncated_laplace_bounds as tl
from dpreplication.workflow import publish, start

start(snakemake)
publish(snakemake, tl.bound_kinks(**snakemake.params.settings))
