"""Scorecard pages in GitHub Markdown: a summary (kind × status per paper) and one page per paper.

Each page lists what does not hold first. The README's status table is the summary, rewritten by
``sync_readme``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from dpreplication.scorecard.claims import KINDS, REPLICATION_KINDS, STATUSES

README_BEGIN = "<!-- scorecard summary: generated from figures/scorecard.csv by `make readme`; do not edit -->"
README_END = "<!-- end of scorecard summary -->"

_CRITERIA = {
    "|reproduced − expected| ≤ tolerance": "= {e} ± {t}",
    "|reproduced − expected| ≤ tolerance·|expected|": "= {e} ± {t}·|{e}|",
    "reproduced ≤ expected + tolerance": "≤ {e} + {t}",
    "reproduced ≥ expected − tolerance": "≥ {e} − {t}",
    "reproduced < expected": "< {e}",
    "reproduced > expected": "> {e}",
}


def cell(value) -> str:
    """One Markdown table cell: numbers to 6 significant digits, pipes escaped, one line."""
    if isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    return re.sub(r"\s+", " ", text).replace("|", "\\|").strip()


def table(header: list[str], rows: list[list]) -> str:
    """Render a GitHub Markdown table with exactly ``len(header)`` cells in every row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def tally(scorecard: pd.DataFrame) -> pd.DataFrame:
    """Claims counted per (paper, kind) and status, every status a column, kinds in KINDS order."""
    counts = scorecard.groupby(["paper", "kind", "status"]).size().unstack(fill_value=0)
    counts = counts.reindex(columns=list(STATUSES), fill_value=0).reset_index()
    counts["kind"] = pd.Categorical(counts["kind"], categories=list(KINDS), ordered=True)
    counts = counts.sort_values(["paper", "kind"])
    counts.insert(2, "claims", counts[list(STATUSES)].sum(axis=1))
    return counts


def summary_table(scorecard: pd.DataFrame, link: str = "{paper}/scorecard.md") -> str:
    """Kind × status per paper; replication evidence (paper, spec) is summed apart from the rest."""
    rows = []
    for paper, group in tally(scorecard).groupby("paper", sort=True):
        name = f"[{paper}]({link.format(paper=paper)})"
        for _, row in group.iterrows():
            rows.append([name, row["kind"], row["claims"], *(row[s] for s in STATUSES)])
            name = ""
    totals = tally(scorecard).assign(evidence=lambda t: t["kind"].isin(REPLICATION_KINDS))
    scope = "all papers" if scorecard["paper"].nunique() > 1 else "total"
    for evidence, label in ((True, f"{scope}: paper + spec"), (False, f"{scope}: diagnostic + sanity")):
        part = totals[totals["evidence"] == evidence]
        rows.append([f"**{label}**", "", int(part["claims"].sum()), *(int(part[s].sum()) for s in STATUSES)])
    return table(["paper", "kind", "claims", *STATUSES], rows)


def _criterion(row: pd.Series) -> str:
    return _CRITERIA[row["comparison"]].format(e=cell(float(row["expected"])), t=cell(float(row["tolerance"])))


def _ordered(scorecard: pd.DataFrame) -> pd.DataFrame:
    order = {s: i for i, s in enumerate(STATUSES)}
    kinds = {k: i for i, k in enumerate(KINDS)}
    return (
        scorecard.assign(_s=scorecard["status"].map(order), _k=scorecard["kind"].map(kinds))
        .sort_values(["_s", "_k"], kind="stable")
        .drop(columns=["_s", "_k"])
    )


def _claim_cells(claim: pd.Series, columns: list[str]) -> list:
    """Return the cells of one claim's row, in ``columns`` order."""
    cells = {
        "paper": claim["paper"],
        "id": f"`{claim['id']}`",
        "kind": claim["kind"],
        "status": claim["status"],
        "claim": claim["claim"],
        "criterion": _criterion(claim),
        "reproduced": float(claim["reproduced"]),
        "reason": claim["reason"] or "",
        "evidence": ", ".join(f"`{e}`" for e in str(claim["evidence"]).split(";") if e),
    }
    return [cells[column] for column in columns]


def paper_page(scorecard: pd.DataFrame, paper: str) -> str:
    """Every claim of one paper: fail, missing, deviation, then pass; reasons and evidence shown."""
    columns = ["id", "kind", "status", "claim", "criterion", "reproduced", "reason", "evidence"]
    claims = _ordered(scorecard[scorecard["paper"] == paper])
    rows = [_claim_cells(claim, columns) for _, claim in claims.iterrows()]
    return (
        f"# Scorecard: {paper}\n\n"
        "Each `reproduced` value is read by the workflow from the figure and table data; the "
        "criterion is the paper's (kind `paper`) or the replication spec's (`spec`) value with its "
        "tolerance. A `deviation` names evidence claims that pass in this run; `missing` means not "
        "computed. [All papers](../scorecard.md).\n\n"
        + summary_table(scorecard[scorecard["paper"] == paper], link="scorecard.md")
        + "\n\n"
        + table(columns, rows)
        + "\n"
    )


def summary_page(scorecard: pd.DataFrame) -> str:
    """Render the landing page: kind × status per paper, then every claim that is not a pass."""
    columns = ["paper", "id", "kind", "status", "claim", "criterion", "reproduced", "reason"]
    open_claims = _ordered(scorecard[scorecard["status"] != "pass"])
    rows = [_claim_cells(claim, columns) for _, claim in open_claims.iterrows()]
    return (
        "# Scorecard\n\n"
        "Every claim of the four papers, recomputed by the workflow and judged: `pass`, `fail` (does "
        "not hold, whatever the reason), `deviation` (does not hold, with evidence claims that pass in "
        "the same run and show the cause) or `missing` (could not be computed). Kinds `paper` and "
        "`spec` are replication evidence; `diagnostic` and `sanity` are checks of this replication. "
        "One page per paper has every claim.\n\n"
        + summary_table(scorecard)
        + "\n\n## Claims that are not a pass\n\n"
        + table(columns, rows)
        + "\n"
    )


def readme_block(scorecard: pd.DataFrame) -> str:
    """Return the README's status table, between its markers."""
    return f"{README_BEGIN}\n{summary_table(scorecard, link='figures/{paper}/scorecard.md')}\n{README_END}"


def sync_readme(readme: Path, scorecard: pd.DataFrame) -> bool:
    """Rewrite the README's status table from the scorecard; True when it changed."""
    text = readme.read_text()
    pattern = re.compile(re.escape(README_BEGIN) + r".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{readme}: no scorecard summary markers ({README_BEGIN!r} … {README_END!r})")
    updated = pattern.sub(lambda _: readme_block(scorecard), text)
    readme.write_text(updated)
    return updated != text


def read_scorecard(path: str | Path) -> pd.DataFrame:
    """Read a scorecard CSV: empty cells stay empty strings, only ``nan``/``NaN`` are missing."""
    return pd.read_csv(path, keep_default_na=False, na_values=["nan", "NaN"])


def main(argv=None) -> int:
    """Run the command line: rewrite the README's scorecard summary from a scorecard CSV."""
    parser = argparse.ArgumentParser(description="Rewrite the README's scorecard summary from a scorecard CSV.")
    parser.add_argument("readme", type=Path)
    parser.add_argument("scorecard", type=Path)
    arguments = parser.parse_args(argv)
    changed = sync_readme(arguments.readme, read_scorecard(arguments.scorecard))
    print(f"{arguments.readme}: scorecard summary {'updated' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
