from pathlib import Path

import pandas as pd

from dpreplication.pipeline.jobs import start
from dpreplication.scorecard import evaluate_claims, load_registry, paper_page, registry_margins

logger = start(snakemake)
tables = {name: pd.read_csv(path) for name, path in snakemake.input.items() if name not in ("registry", "code")}
scorecard = evaluate_claims(load_registry(snakemake.input.registry), tables)
scorecard.to_csv(snakemake.output.csv, index=False)
ledgers = {name: table for name, table in tables.items() if name.endswith(".ledger")}
margins = registry_margins(snakemake.input.registry)
Path(snakemake.output.md).write_text(paper_page(scorecard, snakemake.wildcards.paper, ledgers, margins))
logger.info("status counts: %s", scorecard.status.value_counts().to_dict())
