from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction

start(snakemake)
settings = snakemake.params.settings
files = snakemake.params.files
statuses = prediction.read_statuses(files["status"])
votes = prediction.read_votes(files["votes"])
data, releases = prediction.accuracy_table(votes, statuses, settings, snakemake.params.seed, settings["solver"])
publish(snakemake, data, ledger=prediction.query_ledger_table(releases))
