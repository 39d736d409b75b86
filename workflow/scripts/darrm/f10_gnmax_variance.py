import pandas as pd

from dpreplication.plotting import noise_functions
from dpreplication.replications import darrm_prediction
from dpreplication.workflow import publish, start

start(snakemake)
data = darrm_prediction.gnmax_variance_table(pd.read_csv(snakemake.input.privacy), **snakemake.params.settings)
publish(snakemake, data, noise_functions.gnmax_variance(data))
