from dpreplication.replications import darrm_prediction
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
publish(snakemake, darrm_prediction.privacy_table(settings, settings["solver"]))
