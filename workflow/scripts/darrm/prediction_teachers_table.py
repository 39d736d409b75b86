from dpreplication.replications import darrm_prediction, darrm_teacher_quality
from dpreplication.workflow import publish, start

start(snakemake)
files = snakemake.params.files
statuses = darrm_prediction.read_statuses(files["status"])
per_teacher = darrm_prediction.read_teachers(files["teachers"])
publish(snakemake, darrm_teacher_quality.teachers_table(per_teacher, statuses, snakemake.params.settings))
