from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import figures as tl

start(snakemake)
settings = snakemake.params.settings
data = tl.figure1_density(**settings)
annotations = tl.figure1_annotations(settings["epsilon"], settings["delta"], settings["sensitivity"])
publish(snakemake, data, drawing={})
publish(snakemake, annotations, prefix="annotations_")
