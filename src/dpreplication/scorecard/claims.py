"""Claim registry, evaluation against pipeline tables, and Markdown rendering."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

COLUMNS = ["paper", "claim", "expected", "reproduced", "tolerance", "status",
           "id", "section", "comparison", "source", "reason"]

DATA_STATUS_COLUMN = "data_status"
"""Optional table column: empty when the row was computed, else why not (e.g. a missing dataset)."""
NEEDS_DOWNLOAD = "needs download"
"""Status of a claim whose row could not be computed because its dataset is not available: the
``data_status`` text of the row starts with this and names the dataset and how to get it."""

COMPARISONS = {
    "abs": "|reproduced − expected| ≤ tolerance",
    "rel": "|reproduced − expected| ≤ tolerance·|expected|",
    "le": "reproduced ≤ expected + tolerance",
    "ge": "reproduced ≥ expected − tolerance",
    "lt": "reproduced < expected",
    "gt": "reproduced > expected",
}


@dataclass(frozen=True)
class Claim:
    """One checkable statement: ``reproduced`` (from a table) compared with ``expected``."""

    id: str
    paper: str
    section: str
    claim: str
    expected: float
    table: str
    column: str
    select: dict = field(default_factory=dict)
    comparison: str = "abs"
    tolerance: float = 0.0
    source: str = "paper"
    deviation: str | None = None

    def __post_init__(self):
        if self.comparison not in COMPARISONS:
            raise ValueError(f"claim {self.id}: comparison must be one of {sorted(COMPARISONS)}, got {self.comparison!r}")
        if not (self.tolerance >= 0):
            raise ValueError(f"claim {self.id}: tolerance must be non-negative")

    def holds(self, reproduced: float) -> bool:
        if reproduced is None or math.isnan(reproduced):
            return False
        e, r, t = self.expected, reproduced, self.tolerance
        return {
            "abs": lambda: abs(r - e) <= t,
            "rel": lambda: abs(r - e) <= t * abs(e),
            "le": lambda: r <= e + t,
            "ge": lambda: r >= e - t,
            "lt": lambda: r < e,
            "gt": lambda: r > e,
        }[self.comparison]()


def load_registry(path: str | Path) -> list[Claim]:
    """Read ``workflow/claims/<paper>.yaml``; ids must be unique."""
    document = yaml.safe_load(Path(path).read_text())
    paper = document["paper"]
    claims = []
    for entry in document["claims"]:
        entry = dict(entry)
        source = entry.pop("from")
        # YAML 1.1 reads "1e-09" (no dot) as a string; the registry means a number.
        for number in ("expected", "tolerance"):
            if number in entry:
                entry[number] = float(entry[number])
        claims.append(Claim(paper=paper, table=source["table"], column=source["column"],
                            select=source.get("select", {}), **entry))
    ids = [c.id for c in claims]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"{path}: duplicate claim ids {duplicates}")
    return claims


def _matches(column: pd.Series, wanted) -> pd.Series:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and pd.api.types.is_numeric_dtype(column):
        return (column - wanted).abs() <= 1e-12 * max(1.0, abs(wanted))
    return column.astype(str) == str(wanted)


def _row(claim: Claim, tables: dict[str, pd.DataFrame]) -> pd.Series:
    """The single row of ``claim.table`` matching ``claim.select``."""
    if claim.table not in tables:
        raise KeyError(f"claim {claim.id}: no table {claim.table!r} (have {sorted(tables)})")
    frame = tables[claim.table]
    mask = pd.Series(True, index=frame.index)
    for key, wanted in claim.select.items():
        if key not in frame:
            raise KeyError(f"claim {claim.id}: table {claim.table!r} has no column {key!r}")
        mask &= _matches(frame[key], wanted)
    if claim.column not in frame:
        raise KeyError(f"claim {claim.id}: table {claim.table!r} has no column {claim.column!r}")
    rows = frame.loc[mask]
    if len(rows) != 1:
        raise ValueError(f"claim {claim.id}: {claim.select} selects {len(rows)} rows of {claim.table!r}, expected 1")
    return rows.iloc[0]


def lookup(claim: Claim, tables: dict[str, pd.DataFrame]) -> float:
    """The single value of ``claim.column`` in the row of ``claim.table`` matching ``claim.select``."""
    return float(_row(claim, tables)[claim.column])


def missing_data(claim: Claim, tables: dict[str, pd.DataFrame]) -> str:
    """The row's ``data_status`` when it says the data needed a download, else ``""``."""
    status = _row(claim, tables).get(DATA_STATUS_COLUMN, "")
    return status if isinstance(status, str) and status.startswith(NEEDS_DOWNLOAD) else ""


def evaluate_claims(claims: list[Claim], tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One scorecard row per claim: pass, fail, deviation (a fail with a stated reason), or
    needs download (the row's dataset was unavailable; the reason says which and how to get it)."""
    rows = []
    for claim in claims:
        reproduced = lookup(claim, tables)
        missing = missing_data(claim, tables)
        if missing:
            status, reason = NEEDS_DOWNLOAD, missing
        elif claim.holds(reproduced):
            status, reason = "pass", ""
        elif claim.deviation:
            status, reason = "deviation", claim.deviation
        else:
            status, reason = "fail", ""
        rows.append({
            "paper": claim.paper, "claim": claim.claim, "expected": claim.expected,
            "reproduced": reproduced, "tolerance": claim.tolerance, "status": status,
            "id": claim.id, "section": claim.section, "comparison": COMPARISONS[claim.comparison],
            "source": claim.source, "reason": reason,
        })
    return pd.DataFrame(rows, columns=COLUMNS)


def render_markdown(scorecard: pd.DataFrame) -> str:
    """A Markdown scorecard: a per-paper tally, then every claim."""
    tally = scorecard.groupby(["paper", "status"]).size().unstack(fill_value=0)
    statuses = ["pass", "deviation", "fail"] + ([NEEDS_DOWNLOAD] if NEEDS_DOWNLOAD in tally else [])
    for status in statuses:
        if status not in tally:
            tally[status] = 0
    tally = tally[statuses].reset_index()
    shown = scorecard[["paper", "section", "claim", "expected", "reproduced", "tolerance", "comparison", "status", "reason"]]
    return (
        "# Scorecard\n\n"
        "Every `reproduced` value is recomputed by the workflow from the figure and table data; "
        "`expected` is the paper's value (or the replication spec's, see `source` in the CSV).\n\n"
        + tally.to_markdown(index=False) + "\n\n"
        + shown.to_markdown(index=False, floatfmt=".6g") + "\n"
    )
