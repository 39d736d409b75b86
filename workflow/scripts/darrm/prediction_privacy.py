from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import prediction

start(snakemake)
settings = snakemake.params.settings
publish(snakemake, prediction.privacy_table(settings, settings["solver"]))
