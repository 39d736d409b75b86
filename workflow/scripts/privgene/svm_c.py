from dpreplication.data import tabular
from dpreplication.pipeline.jobs import start
from dpreplication.replications.privgene import methods

start(snakemake)
frame = methods.svm_c_tuning(
    tabular.load(snakemake.input.data), seed=snakemake.params.seed, **snakemake.params.settings
)
frame.to_csv(snakemake.output[0], index=False)
