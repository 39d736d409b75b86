from dpreplication.data import tabular
from dpreplication.pipeline.jobs import start
from dpreplication.replications.privgene import datasets

logger = start(snakemake)
data = datasets.prepare_dataset(
    snakemake.wildcards.pg_dataset, snakemake.input.files, snakemake.params.seed, **snakemake.params.settings
)
tabular.save(data, snakemake.output[0])
logger.info("%s: %d rows x %d columns from %s", data.name, *data.features.shape, data.source)
