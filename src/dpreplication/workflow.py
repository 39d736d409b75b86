"""Glue between Snakemake scripts and the package: logging, outputs, provenance.

A workflow script is three lines: compute a tidy DataFrame with a package
function, draw it with a plotting function, and :func:`publish` both.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pandas as pd

from dpreplication.plotting import save_png
from dpreplication.provenance import write_sidecar, write_table


def start(snakemake) -> logging.Logger:
    """Send this job's log records (and warnings) to its ``log:`` file."""
    handlers = (
        [logging.FileHandler(snakemake.log[0], mode="w")] if snakemake.log else [logging.StreamHandler(sys.stderr)]
    )
    logging.basicConfig(
        level=logging.INFO, handlers=handlers, force=True, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.captureWarnings(True)
    logger = logging.getLogger(snakemake.rule)
    _log_uncaught_exceptions(logger)
    logger.info(
        "settings: %s", dict(snakemake.params.items()) if hasattr(snakemake.params, "items") else snakemake.params
    )
    return logger


def _log_uncaught_exceptions(logger: logging.Logger) -> None:
    """Write an exception that ends the job into the job's log too (Snakemake shows stderr, but the
    log file is what remains), then let it end the job as usual."""
    previous = sys.excepthook

    def hook(kind, value, traceback):
        logger.critical("the job failed", exc_info=(kind, value, traceback))
        previous(kind, value, traceback)

    sys.excepthook = hook


def publish(snakemake, data: pd.DataFrame, figure=None, *, prefix: str = "") -> None:
    """Write ``data`` to ``output.<prefix>csv`` (and ``<prefix>md``, ``<prefix>tex`` where the rule
    declares them), ``figure`` to ``<prefix>png``, and the provenance sidecar to ``<prefix>json``."""
    output = snakemake.output
    write_table(data, output[f"{prefix}csv"], output.get(f"{prefix}md"), output.get(f"{prefix}tex"))
    written = [output[f"{prefix}csv"]]
    if figure is not None:
        written.append(save_png(figure, output[f"{prefix}png"]))
    written += [output[f"{prefix}{kind}"] for kind in ("md", "tex") if f"{prefix}{kind}" in output.keys()]
    write_sidecar(
        output[f"{prefix}json"],
        settings=snakemake.params.get("settings"),
        seed=snakemake.params.get("seed"),
        profile=snakemake.config["profile"],
        variant=snakemake.config.get("variant", ""),
        outputs=written,
    )
    logging.getLogger(snakemake.rule).info("wrote %s", ", ".join(str(Path(w)) for w in written))
