import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import ablations

start(snakemake)
w, settings = snakemake.wildcards, dict(snakemake.params.settings)
data = tabular.load(snakemake.input.data)


def every_c(repetition: int) -> pd.DataFrame:
    """One repetition of Fig. 2 at the small ε, over the whole c grid."""
    return pd.concat(
        [
            ablations.choice_of_c_epsilon_job(
                data,
                w.task,
                float(c),
                repetition,
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


for_each_repetition(snakemake, every_c)
