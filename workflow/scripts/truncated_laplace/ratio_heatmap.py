from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import figures as tl

FIGURES = {"amplitude": tl.figure2_amplitude_ratio_heatmap, "power": tl.figure3_power_ratio_heatmap}

start(snakemake)
quantity = snakemake.params.quantity
data = FIGURES[quantity](**snakemake.params.settings)
publish(snakemake, data, drawing={"column": f"{quantity}_ratio"})
