from dpreplication.replications import darrm_prediction, darrm_teacher_quality
from dpreplication.workflow import publish, start

start(snakemake)
files = snakemake.params.files
statuses = darrm_prediction.read_statuses(files["status"])
votes = darrm_prediction.read_votes(files["votes"])
publish(snakemake, darrm_teacher_quality.teacher_diagnostics(votes, statuses, snakemake.params.settings))
