import pandas as pd

from dpreplication.plotting import noise_functions
from dpreplication.replications import darrm
from dpreplication.workflow import publish, start

start(snakemake)
shapes = pd.read_csv(snakemake.input.shapes)
settings = dict(snakemake.params.settings)
log_y = settings.pop("log_y")
data = darrm.figure9_prior_errors(shapes=shapes, seed=snakemake.params.seed, **settings)
publish(snakemake, data, noise_functions.ensemble_errors(data, log_y=log_y))
