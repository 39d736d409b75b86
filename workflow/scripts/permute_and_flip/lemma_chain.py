from dpreplication.data import load_dpbench_histogram
from dpreplication.replications import permute_and_flip_sampling as pf
from dpreplication.workflow import publish, start

start(snakemake)
histograms = {name: load_dpbench_histogram(path) for name, path in snakemake.input.items() if name != "code"}
publish(snakemake, pf.lemma_chain(**snakemake.params.settings, root_seed=snakemake.params.seed, histograms=histograms))
