import pandas as pd

from dpreplication.pipeline.jobs import publish, start

start(snakemake)
data = pd.concat([pd.read_csv(path) for path in snakemake.input.curves], ignore_index=True)
publish(snakemake, data, drawing={})
publish(
    snakemake, pd.concat([pd.read_csv(path) for path in snakemake.input.at_target], ignore_index=True), prefix="t3_"
)
