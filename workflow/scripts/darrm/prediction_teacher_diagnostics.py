from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction, teacher_quality

start(snakemake)
files = snakemake.params.files
statuses = prediction.read_statuses(files["status"])
votes = prediction.read_votes(files["votes"])
publish(snakemake, teacher_quality.teacher_diagnostics(votes, statuses, snakemake.params.settings))
