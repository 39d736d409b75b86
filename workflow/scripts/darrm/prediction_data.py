import json
from pathlib import Path

from dpreplication.data.fetch import availability
from dpreplication.pipeline.jobs import start

logger = start(snakemake)
probe = snakemake.params.settings
status = availability(snakemake.wildcards.dataset, probe["directory"], probe["mirror"], probe["timeout"])
logger.info("%s: sources %s; missing %s", snakemake.wildcards.dataset, status["files"], status["missing"])
# Where each file is does not matter downstream, only whether it is there: keep the status stable.
Path(snakemake.output[0]).write_text(json.dumps({**status, "files": sorted(status["files"])}, indent=2) + "\n")
