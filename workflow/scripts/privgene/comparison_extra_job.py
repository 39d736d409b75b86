import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import for_each_repetition, start
from dpreplication.replications.privgene import comparison, methods

start(snakemake)
w, settings, seed = snakemake.wildcards, snakemake.params.settings, snakemake.params.seed
data = tabular.load(snakemake.input.data)
svm_C = pd.read_csv(snakemake.input.tuned_C[0]).query("chosen").C.iloc[0] if snakemake.input.tuned_C else None


def repetition_rows(repetition: int) -> pd.DataFrame:
    """One second-stage repetition of the cell: the first stage's job at this ε (NoPrivacy: ε-free)."""
    if w.method == "NoPrivacy":
        return methods.reference_job(data, w.task, w.method, repetition, seed=seed, svm_C=svm_C, **settings)
    return comparison.comparison_job(
        data, w.task, w.method, repetition, seed=seed, **{**settings, "epsilons": [float(w.epsilon)]}
    )


for_each_repetition(snakemake, repetition_rows)
