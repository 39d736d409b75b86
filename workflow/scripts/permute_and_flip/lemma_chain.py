from dpreplication.data import load_dpbench_histogram
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.permute_and_flip import sampling as pf

start(snakemake)
histograms = {name: load_dpbench_histogram(path) for name, path in snakemake.input.items() if name != "code"}
publish(snakemake, pf.lemma_chain(**snakemake.params.settings, root_seed=snakemake.params.seed, histograms=histograms))
