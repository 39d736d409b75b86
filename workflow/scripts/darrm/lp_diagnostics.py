from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
data = darrm.lp_diagnostics_table(**snakemake.params.settings)
# Wall-clock times vary between runs: they go to a side file (and the log), not into the compared table.
publish(snakemake, data.drop(columns=darrm.LP_TIMING_COLUMNS))
data[["setting", "K", "m", *darrm.LP_TIMING_COLUMNS]].to_csv(snakemake.output.timings, sep="\t", index=False)
