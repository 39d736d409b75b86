import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import ablations

start(snakemake)
w, settings, seed = snakemake.wildcards, snakemake.params.settings, snakemake.params.seed
tuned = pd.read_csv(snakemake.input.tuned_C).query("chosen").C.iloc[0] if "tuned_C" in snakemake.input.keys() else None
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        ablations.schedule_ablation_job(
            data,
            w.task,
            repetition,
            seed=seed,
            epsilon=settings["epsilon"],
            algorithm=settings["algorithm"],
            schedules=settings["variants"],
            svm_C=tuned,
            folds=settings["folds"],
            use_folds=settings["use_folds"],
        )
        for repetition in batch_repetitions(w.repetitions)
    ],
)
