import pandas as pd

from dpreplication.data import tabular
from dpreplication.replications import privgene_ablations
from dpreplication.workflow import start

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
tuned = pd.read_csv(snakemake.input.tuned_C).query("chosen").C.iloc[0] if "tuned_C" in snakemake.input.keys() else None
frame = privgene_ablations.schedule_ablation_job(
    tabular.load(snakemake.input.data),
    w.task,
    int(w.repetition),
    seed=snakemake.params.seed,
    epsilon=settings["epsilon"],
    algorithm=settings["algorithm"],
    schedules=settings["variants"],
    svm_C=tuned,
    folds=settings["folds"],
)
frame.to_csv(snakemake.output[0], index=False)
