from dpreplication.replications import permute_and_flip as pf
from dpreplication.workflow import publish, start

start(snakemake)
cases = snakemake.params.settings["cases"]
publish(snakemake, pf.exact_pmfs(cases))
publish(snakemake, pf.exact_summary(cases), prefix="summary_")
