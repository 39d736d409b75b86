from dpreplication.replications import truncated_laplace_audits as tl
from dpreplication.workflow import publish, start

start(snakemake)
publish(snakemake, tl.library_cross_check(**snakemake.params.settings))
