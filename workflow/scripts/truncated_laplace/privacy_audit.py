from dpreplication.pipeline.jobs import publish, start
from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications.truncated_laplace import audits as tl

start(snakemake)
data = tl.privacy_audit(**snakemake.params.settings)
publish(snakemake, data, plots.privacy_audit(data))
