from dpreplication.replications import darrm_prediction
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
statuses, votes, _ = darrm_prediction.read_cached(snakemake.input, settings["datasets"])
data = darrm_prediction.accuracy_table(votes, statuses, settings, snakemake.params.seed, settings["solver"])
publish(snakemake, data)
