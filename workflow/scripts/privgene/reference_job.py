import pandas as pd

from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import for_each_repetition, start

start(snakemake)
w = snakemake.wildcards
tuned = pd.read_csv(snakemake.input.tuned_C).query("chosen").C.iloc[0] if "tuned_C" in snakemake.input.keys() else None
data = tabular.load(snakemake.input.data)
for_each_repetition(
    snakemake,
    lambda repetition: privgene.reference_job(
        data,
        w.task,
        w.method,
        repetition,
        seed=snakemake.params.seed,
        svm_C=tuned,
        **snakemake.params.settings,
    ),
)
