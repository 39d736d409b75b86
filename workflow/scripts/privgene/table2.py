from dpreplication.data import tabular
from dpreplication.replications import privgene_datasets
from dpreplication.workflow import publish, start

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
publish(snakemake, privgene_datasets.table2(data))
