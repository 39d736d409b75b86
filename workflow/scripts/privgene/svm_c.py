from dpreplication.data import tabular
from dpreplication.replications import privgene
from dpreplication.workflow import start

start(snakemake)
frame = privgene.svm_c_tuning(
    tabular.load(snakemake.input.data), seed=snakemake.params.seed, **snakemake.params.settings
)
frame.to_csv(snakemake.output[0], index=False)
