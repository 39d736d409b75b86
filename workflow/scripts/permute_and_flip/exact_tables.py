from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.permute_and_flip import exact as pf

start(snakemake)
cases = snakemake.params.settings["cases"]
publish(snakemake, pf.exact_pmfs(cases))
publish(snakemake, pf.exact_summary(cases), prefix="summary_")
