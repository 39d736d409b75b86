from dpreplication.data import fetch, resolve_mirror
from dpreplication.pipeline.jobs import start

logger = start(snakemake)
mirror = resolve_mirror(snakemake.params.mirror)
logger.info("source: %s", mirror or "canonical URL")
fetch(snakemake.wildcards.dataset, snakemake.wildcards.filename, snakemake.output[0], mirror)
