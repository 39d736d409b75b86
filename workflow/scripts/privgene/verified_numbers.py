from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import methods, verified

start(snakemake)
settings = snakemake.params.settings
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
sizes = {name: methods.training_size(len(item.features), settings["folds"]) for name, item in data.items()}
publish(
    snakemake,
    verified.verified_numbers(
        snakemake.params.seed, settings["algorithm"], settings["audit_random_tuples"], sizes, data["Adult"]
    ),
)
