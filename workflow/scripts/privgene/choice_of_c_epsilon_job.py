import pandas as pd

from dpreplication.data import tabular
from dpreplication.replications import privgene_ablations
from dpreplication.workflow import start

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
data = tabular.load(snakemake.input.data)
frame = pd.concat(
    [
        privgene_ablations.choice_of_c_epsilon_job(
            data,
            w.task,
            float(c),
            int(w.repetition),
            seed=snakemake.params.seed,
            epsilons=settings["epsilons"],
            algorithm=settings["algorithm"],
            folds=settings["folds"],
            use_folds=settings["use_folds"],
        )
        for c in settings["c_grid"]
    ],
    ignore_index=True,
)
frame.to_csv(snakemake.output[0], index=False)
