from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import audits as tl

start(snakemake)
data = tl.privacy_profiles(**snakemake.params.settings)
publish(snakemake, data, drawing={})
