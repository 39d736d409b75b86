import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import methods as privgene

start(snakemake)
settings = dict(snakemake.params.settings)
axes = {"dataset": settings.pop("datasets"), "task": settings.pop("tasks"), "method": settings.pop("methods")}
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
tuned = {table.dataset.iloc[0]: table.query("chosen").C.iloc[0] for table in map(pd.read_csv, snakemake.input.tuned_C)}
for_each_repetition(
    snakemake,
    lambda repetition, dataset, task, method: privgene.reference_job(
        data[dataset],
        task,
        method,
        repetition,
        seed=snakemake.params.seed,
        svm_C=tuned[dataset] if (task, method) == ("svm", "NoPrivacy") else None,
        **settings,
    ),
    **axes,
)
