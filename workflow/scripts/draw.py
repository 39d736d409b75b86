from dpreplication import plotting
from dpreplication.pipeline.jobs import start

start(snakemake)
plotting.draw(
    snakemake.params.drawing,
    snakemake.input.tables,
    snakemake.input.sidecar,
    snakemake.output.png,
    snakemake.output.pdf,
)
