from dpreplication.data import load_dpbench_histogram
from dpreplication.pipeline.jobs import start
from dpreplication.replications.permute_and_flip import exact as pf

start(snakemake)
dataset, options = snakemake.wildcards.dataset, snakemake.params.settings
histogram = load_dpbench_histogram(snakemake.input.histogram)
pf.utility_curves(
    histogram,
    dataset,
    options["tasks"],
    options["n_epsilons"],
    options["epsilon_min"],
    options["mc_epsilons"],
    options["mc_draws"],
    snakemake.params.seed,
).to_csv(snakemake.output.curves, index=False)
pf.epsilon_at_em_error(histogram, dataset, options["tasks"], snakemake.params.target_error).to_csv(
    snakemake.output.at_target, index=False
)
