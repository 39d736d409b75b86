from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import datasets

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
publish(snakemake, datasets.table2(data))
