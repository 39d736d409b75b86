from dpreplication.plotting import curves
from dpreplication.replications import permute_and_flip as pf
from dpreplication.workflow import publish, start

start(snakemake)
data = pf.worst_case(**snakemake.params.settings)
publish(snakemake, data, curves.worst_case(data))
