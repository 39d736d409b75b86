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


def _drawings() -> dict[str, tuple[str, list[str], str]]:
    workflow = load_workflow(REPO / "Snakefile")
    return {
        Path(rule.output["png"]).relative_to("figures").with_suffix("").as_posix(): (
            rule.params["drawing"],
            list(rule.input["tables"]),
            rule.input["sidecar"],
        )
        for rule in workflow.rules
        if rule.name.startswith("draw_")
    }


DRAWINGS = _drawings()
"""``{"<paper>/<name>": (plotting function, its tables, the sidecar with its arguments)}``."""


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
