from dpreplication.data import tabular
from dpreplication.replications import privgene_datasets
from dpreplication.workflow import start

logger = start(snakemake)
data = privgene_datasets.prepare_dataset(
    snakemake.wildcards.pg_dataset, snakemake.input.files, snakemake.params.seed, **snakemake.params.settings
)
tabular.save(data, snakemake.output[0])
logger.info("%s: %d rows x %d columns from %s", data.name, *data.features.shape, data.source)
