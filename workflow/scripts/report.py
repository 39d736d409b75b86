from pathlib import Path

from dpreplication.pipeline.jobs import start
from dpreplication.pipeline.report import ReportItem, build_report
from dpreplication.scorecard import read_scorecard

logger = start(snakemake)
items = [
    ReportItem(
        paper=i["paper"],
        name=i["name"],
        path=Path(i["path"]),
        caption=Path(i["caption"]),
        sidecar=Path(i["sidecar"]) if i["sidecar"] else None,
    )
    for i in snakemake.params["report_items"]
]
Path(snakemake.output[0]).write_text(
    build_report(items, read_scorecard(snakemake.input.scorecard), snakemake.config["profile"])
)
logger.info("report with %d items", len(items))
