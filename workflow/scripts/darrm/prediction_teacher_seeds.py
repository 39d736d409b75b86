from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction, seed_gaps, teacher_quality

start(snakemake)
settings = snakemake.params.settings
files = snakemake.params.files
statuses = prediction.read_statuses(files["status"])
replicates = prediction.read_replicates(files["votes"])
table = seed_gaps.with_seed_gaps(prediction.seed_spread_table(replicates, statuses, settings, settings["solver"]))
publish(snakemake, table, ledger=teacher_quality.replicates_ledger(files["teachers"]))
