import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import ablations

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
tuned = pd.read_csv(snakemake.input.tuned_C).query("chosen").C.iloc[0] if "tuned_C" in snakemake.input.keys() else None
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: ablations.schedule_ablation_job(
        data,
        w.task,
        repetition,
        seed=snakemake.params.seed,
        epsilon=settings["epsilon"],
        algorithm=settings["algorithm"],
        schedules=settings["variants"],
        svm_C=tuned,
        folds=settings["folds"],
        use_folds=settings["use_folds"],
    ),
)
