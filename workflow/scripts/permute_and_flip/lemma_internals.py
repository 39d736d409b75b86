from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.permute_and_flip import sampling as pf

start(snakemake)
publish(snakemake, pf.lemma_internals(**snakemake.params.settings, root_seed=snakemake.params.seed))
