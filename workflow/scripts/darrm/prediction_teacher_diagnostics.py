from dpreplication.replications import darrm_prediction, darrm_teacher_quality
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
statuses, votes, _ = darrm_prediction.read_cached(snakemake.input, settings["datasets"])
publish(snakemake, darrm_teacher_quality.teacher_diagnostics(votes, statuses, settings))
