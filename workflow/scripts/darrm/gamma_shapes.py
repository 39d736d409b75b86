from dpreplication.plotting import noise_functions
from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
data = darrm.gamma_shapes(**snakemake.params.figure, **snakemake.params.settings)
publish(snakemake, data, noise_functions.gamma_shapes(data))
