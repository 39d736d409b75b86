import itertools

import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import jobs

start(snakemake)
settings, seed = dict(snakemake.params.settings), snakemake.params.seed
points = itertools.product(settings.pop("datasets"), settings.pop("tasks"), settings.pop("methods"))
data = {item.name: item for item in map(tabular.load, snakemake.input.data)}
tuned = {table.dataset.iloc[0]: table.query("chosen").C.iloc[0] for table in map(pd.read_csv, snakemake.input.tuned_C)}
write_rows(
    snakemake,
    [
        jobs.run_job(
            data[dataset],
            jobs.reference(
                task, method, svm_C=tuned[dataset] if (task, method) == ("svm", "NoPrivacy") else None, **settings
            ),
            repetition,
            seed=seed,
        )
        for dataset, task, method in points
        for repetition in batch_repetitions(snakemake.wildcards.repetitions)
    ],
)
