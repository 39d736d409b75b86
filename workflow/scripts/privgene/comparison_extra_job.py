import pandas as pd

from dpreplication.data import tabular
from dpreplication.pipeline.jobs import batch_repetitions, start, write_rows
from dpreplication.replications.privgene import jobs

start(snakemake)
w, settings, seed = snakemake.wildcards, dict(snakemake.params.settings), snakemake.params.seed
data = tabular.load(snakemake.input.data)
if w.method == "NoPrivacy":  # ε-free: the first stage's reference job
    svm_C = pd.read_csv(snakemake.input.tuned_C[0]).query("chosen").C.iloc[0] if snakemake.input.tuned_C else None
    job = jobs.reference(w.task, w.method, svm_C=svm_C, **settings)
else:  # the first stage's comparison job at this ε
    job = jobs.comparison(w.task, w.method, **{**settings, "epsilons": [float(w.epsilon)]})
write_rows(
    snakemake, [jobs.run_job(data, job, repetition, seed=seed) for repetition in batch_repetitions(w.repetitions)]
)
