from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction

start(snakemake)
settings = snakemake.params.settings
files = snakemake.params.files
statuses = prediction.read_statuses(files["status"])
replicates = prediction.read_replicates(files["votes"])
publish(snakemake, prediction.seed_spread_table(replicates, statuses, settings, settings["solver"]))
