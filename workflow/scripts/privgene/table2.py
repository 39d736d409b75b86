from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import publish, start

start(snakemake)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
publish(snakemake, privgene.table2(data))
