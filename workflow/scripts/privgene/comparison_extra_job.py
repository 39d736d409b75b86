import pandas as pd

from dpreplication.data import tabular
from dpreplication.replications import privgene, privgene_comparison
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w, settings, seed = snakemake.wildcards, snakemake.params.settings, snakemake.params.seed
data = tabular.load(snakemake.input.data)
svm_C = pd.read_csv(snakemake.input.tuned_C[0]).query("chosen").C.iloc[0] if snakemake.input.tuned_C else None


def repetition_rows(repetition: int) -> pd.DataFrame:
    """One second-stage repetition of the cell: the first stage's job at this ε (NoPrivacy: ε-free)."""
    if w.method == "NoPrivacy":
        return privgene.reference_job(data, w.task, w.method, repetition, seed=seed, svm_C=svm_C, **settings)
    return privgene_comparison.comparison_job(
        data, w.task, w.method, repetition, seed=seed, **{**settings, "epsilons": [float(w.epsilon)]}
    )


for_each_repetition(snakemake, repetition_rows)
