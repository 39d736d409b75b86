from dpreplication.replications import darrm_prediction
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
files = snakemake.params.files
statuses = darrm_prediction.read_statuses(files["status"])
replicates = darrm_prediction.read_replicates(files["votes"])
publish(snakemake, darrm_prediction.seed_spread_table(replicates, statuses, settings, settings["solver"]))
