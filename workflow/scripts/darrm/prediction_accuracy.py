from dpreplication.replications import darrm_prediction
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
files = snakemake.params.files
statuses = darrm_prediction.read_statuses(files["status"])
votes = darrm_prediction.read_votes(files["votes"])
data = darrm_prediction.accuracy_table(votes, statuses, settings, snakemake.params.seed, settings["solver"])
publish(snakemake, data)
