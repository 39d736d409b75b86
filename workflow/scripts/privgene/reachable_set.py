import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.privgene import ablations as privgene_ablations

start(snakemake)
settings = dict(snakemake.params.settings)
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
tuned_C = {name: pd.read_csv(path).query("chosen").C.iloc[0] for name, path in zip(data, snakemake.input.tuned_C)}
table = privgene_ablations.reachable_set_table(
    data,
    tuned_C,
    seed=snakemake.params.seed,
    algorithm=settings["algorithm"],
    paper_training_rows=settings["paper_training_rows"],
    epsilon=settings["epsilon"],
    folds=settings["folds"],
    use_folds=settings["use_folds"],
)
publish(snakemake, table, drawing={})
