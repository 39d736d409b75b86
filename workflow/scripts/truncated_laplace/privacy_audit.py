from dpreplication.plotting import noise_distributions as plots
from dpreplication.replications import truncated_laplace_audits as tl
from dpreplication.workflow import publish, start

start(snakemake)
data = tl.privacy_audit(**snakemake.params.settings)
publish(snakemake, data, plots.privacy_audit(data))
