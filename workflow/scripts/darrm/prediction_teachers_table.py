from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction, teacher_quality

start(snakemake)
files = snakemake.params.files
statuses = prediction.read_statuses(files["status"])
per_teacher = prediction.read_teachers(files["teachers"])
table = teacher_quality.teachers_table(per_teacher, statuses, snakemake.params.settings)
publish(snakemake, table, ledger=teacher_quality.teachers_ledger(per_teacher))
