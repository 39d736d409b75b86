from dpreplication.replications import darrm_prediction, darrm_teacher_quality
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
statuses, _, per_teacher = darrm_prediction.read_cached(snakemake.input, settings["datasets"])
publish(snakemake, darrm_teacher_quality.teachers_table(per_teacher, statuses, settings))
