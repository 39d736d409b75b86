from dpreplication.replications import permute_and_flip_sampling as pf
from dpreplication.workflow import publish, start

start(snakemake)
publish(snakemake, pf.lemma_internals(**snakemake.params.settings, root_seed=snakemake.params.seed))
