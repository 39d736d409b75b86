from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import analytic

start(snakemake)
data = analytic.lp_diagnostics_table(**snakemake.params.settings)
# Wall-clock times vary between runs: they go to a side file (and the log), not into the compared table.
publish(snakemake, data.drop(columns=analytic.LP_TIMING_COLUMNS))
data[["setting", "K", "m", *analytic.LP_TIMING_COLUMNS]].to_csv(snakemake.output.timings, sep="\t", index=False)
