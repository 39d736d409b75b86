import pandas as pd

from dpreplication.plotting import noise_functions
from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
shapes = pd.read_csv(snakemake.input.shapes)
data = darrm.figure9_prior_errors(shapes=shapes, seed=snakemake.params.seed, **snakemake.params.settings)
publish(snakemake, data, noise_functions.ensemble_errors(data, log_y=noise_functions.F9_LOG_PANELS))
