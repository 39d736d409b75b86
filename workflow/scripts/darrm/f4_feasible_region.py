from dpreplication.plotting import noise_functions
from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
data = darrm.figure4_feasible_region(**snakemake.params.settings)
publish(snakemake, data, noise_functions.feasible_region(data))
