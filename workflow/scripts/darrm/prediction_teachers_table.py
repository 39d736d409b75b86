from dpreplication.replications import darrm_prediction
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
statuses, _, per_teacher = darrm_prediction.read_cached(snakemake.input, settings["datasets"])
publish(snakemake, darrm_prediction.teachers_table(per_teacher, statuses, settings))
