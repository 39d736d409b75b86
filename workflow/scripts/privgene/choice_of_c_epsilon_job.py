from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import ablations

start(snakemake)
w, settings, seed = snakemake.wildcards, snakemake.params.settings, snakemake.params.seed
data = tabular.load(snakemake.input.data)
write_rows(
    snakemake,
    [
        ablations.choice_of_c_epsilon_job(
            data,
            w.task,
            float(c),
            repetition,
            seed=seed,
            epsilons=settings["epsilons"],
            algorithm=settings["algorithm"],
            folds=settings["folds"],
            use_folds=settings["use_folds"],
        )
        for repetition in batch_repetitions(w.repetitions)
        for c in settings["c_grid"]
    ],
)
