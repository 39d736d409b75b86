from pathlib import Path

import pandas as pd

from dpreplication.scorecard import render_markdown
from dpreplication.workflow import start

start(snakemake)
scorecard = pd.concat([pd.read_csv(path, keep_default_na=False) for path in snakemake.input if path.endswith(".csv")],
                      ignore_index=True)
scorecard.to_csv(snakemake.output.csv, index=False)
Path(snakemake.output.md).write_text(render_markdown(scorecard))
