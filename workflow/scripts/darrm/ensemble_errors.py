import pandas as pd

from dpreplication.plotting import noise_functions
from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
shapes = pd.read_csv(snakemake.input.shapes)
data = darrm.ensemble_errors(shapes, seed=snakemake.params.seed, **snakemake.params.figure, **snakemake.params.settings)
publish(snakemake, data, noise_functions.ensemble_errors(data))
