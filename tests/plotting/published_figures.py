"""The published figures, drawn as their drawing rules draw them (``workflow/rules/drawing.smk``).

Every figure of the default profile's tree (``figures/``, committed) is read back from its CSVs and
the drawing arguments in its sidecar by :func:`dpreplication.plotting.published_figure`, so that a
test sees exactly the published picture.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dpreplication.pipeline.snakefile import load_workflow
from dpreplication.plotting import published_figure

REPO = Path(__file__).resolve().parents[2]


def _drawings() -> tuple[dict[str, tuple[str, list[str], str]], dict[str, str]]:
    workflow = load_workflow(REPO / "Snakefile")
    rules = {
        Path(rule.output["png"]).relative_to("figures").with_suffix("").as_posix(): rule
        for rule in workflow.rules
        if rule.name.startswith("draw_")
    }
    drawings = {
        name: (rule.params["drawing"], list(rule.input["tables"]), rule.input["sidecar"])
        for name, rule in rules.items()
    }
    captions = {
        name: Path(report.caption.get_path_or_uri(secret_free=True)).read_text()
        for name, rule in rules.items()
        if (report := rule.output["png"].flags.get("report")) is not None
    }
    return drawings, captions


DRAWINGS, CAPTIONS = _drawings()
"""``{"<paper>/<name>": (plotting function, its tables, the sidecar with its arguments)}``, and
``{"<paper>/<name>": its report caption}`` for the figures with one."""


def figure(name: str):
    """Draw the published figure ``<paper>/<name>`` from the committed tree (skip where it is absent)."""
    function, tables, sidecar = DRAWINGS[name]
    missing = [path for path in (*tables, sidecar) if not (REPO / path).is_file()]
    if missing:
        pytest.skip(f"{name}: not in the committed tree ({', '.join(missing)}): run `make replicate`")
    return published_figure(function, [REPO / table for table in tables], REPO / sidecar)


def table(name: str):
    """Read the published table ``<paper>/<name>.csv`` of the committed tree."""
    import pandas as pd

    return pd.read_csv(REPO / "figures" / f"{name}.csv")
