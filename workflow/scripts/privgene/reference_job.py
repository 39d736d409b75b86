import pandas as pd

from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import start

start(snakemake)
w = snakemake.wildcards
tuned = pd.read_csv(snakemake.input.tuned_C).query("chosen").C.iloc[0] if "tuned_C" in snakemake.input.keys() else None
frame = privgene.reference_job(
    tabular.load(snakemake.input.data),
    w.task,
    w.method,
    int(w.repetition),
    seed=snakemake.params.seed,
    svm_C=tuned,
    **snakemake.params.settings,
)
frame.to_csv(snakemake.output[0], index=False)
