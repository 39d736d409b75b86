from dpreplication.data import tabular
from dpreplication.replications import privgene, privgene_verified
from dpreplication.workflow import publish, start

start(snakemake)
settings = snakemake.params.settings
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
sizes = {name: privgene.training_size(len(item.features), settings["folds"]) for name, item in data.items()}
publish(
    snakemake,
    privgene_verified.verified_numbers(
        snakemake.params.seed, settings["algorithm"], settings["audit_random_tuples"], sizes, data["Adult"]
    ),
)
