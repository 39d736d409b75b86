from pathlib import Path

import pandas as pd

from dpreplication.pipeline.jobs import start
from dpreplication.scorecard import read_scorecard, summary_page

start(snakemake)
scorecard = pd.concat([read_scorecard(path) for path in snakemake.input if path.endswith(".csv")], ignore_index=True)
scorecard.to_csv(snakemake.output.csv, index=False)
Path(snakemake.output.md).write_text(summary_page(scorecard))
