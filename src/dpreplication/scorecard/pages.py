"""Scorecard pages in GitHub Markdown: a summary (kind × status per paper) and one page per paper.

Each page lists what does not hold first. The README's status table is the summary, rewritten by
``sync_readme``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from dpreplication.scorecard.claims import KINDS, REPLICATION_KINDS
from dpreplication.scorecard.evaluation import STATUSES
from dpreplication.scorecard.uncertainty import adjusted_decisive, confidence

README_BEGIN = "<!-- scorecard summary: generated from figures/scorecard.csv by `make readme`; do not edit -->"
README_END = "<!-- end of scorecard summary -->"

_CRITERIA = {
    "|reproduced − expected| ≤ tolerance": "= {e} ± {t}",
    "|reproduced − expected| ≤ tolerance·|expected|": "= {e} ± {t}·|{e}|",
    "reproduced ≤ expected + tolerance": "≤ {e} + {t}",
    "reproduced ≥ expected − tolerance": "≥ {e} − {t}",
    "expected ≤ reproduced ≤ expected + tolerance": "∈ [{e}, {e} + {t}]",
    "reproduced < expected − tolerance": "< {e} − {t}",
    "reproduced > expected + tolerance": "> {e} + {t}",
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
    """Return the claim's criterion in symbols; a zero tolerance is left out (``< 0``, not ``< 0 − 0``)."""
    text = _CRITERIA[row["comparison"]]
    if float(row["tolerance"]) == 0:
        text = re.sub(r" [±+−] \{t\}(·\|\{e\}\|)?", "", text).replace("∈ [{e}, {e}]", "= {e}")
    return text.format(e=cell(float(row["expected"])), t=cell(float(row["tolerance"])))


def _interval(claim: pd.Series) -> str:
    """How the value was obtained: ``exact``, a test with its sample size, or the CI (its level) over its runs."""
    runs = f", {claim['runs']:.0f} runs" if pd.notna(claim.get("runs")) else ""
    if claim.get("draws") == "interval" and pd.notna(claim.get("ci_low")):
        looks = int(claim["looks"]) if pd.notna(claim.get("looks")) else 1
        level = f"{100 * confidence(looks):g} % " if looks > 1 else ""
        return f"{level}[{cell(float(claim['ci_low']))}, {cell(float(claim['ci_high']))}]{runs}"
    if claim.get("draws") == "test":
        return f"test{runs}"
    if claim.get("draws") == "seeds" and pd.notna(claim.get("se")):
        return f"seed sd {cell(float(claim['se']))} over {claim['runs']:.0f} seeds"
    return str(claim.get("draws") or "exact")


RULE = (
    "A claim whose value comes from random draws (`draws: interval`) is judged on its confidence "
    "interval (95 %; shown with its level where a verdict may be read at more than one look), not its "
    "point: `pass` when the whole interval lies in the criterion's accepted region, `fail` when it lies "
    "outside that region shrunk by the quantity's margin (its smallest effect of interest, listed "
    "below with its source; a two-sided region narrower than twice the margin shrinks to its centre), "
    "`inconclusive` otherwise, with the runs at which an interval of the observed spread would decide. "
    "`exact` values are deterministic; a "
    "`test` value is a test statistic judged at its own stated level; a `seeds` value is a mean over "
    "S independently seeded replicates (teacher ensembles) of a number the paper reports from one "
    "replicate, and its tolerance τ widens to √(τ² + 4s²(1 + 1/S)) with s the seed spread."
)


def multiplicity_table(scorecard: pd.DataFrame) -> str:
    """Per paper: decisive interval verdicts, and how many stay decisive under Holm and Benjamini–Hochberg.

    The family is the paper's interval claims that were computed; each verdict's one-sided p-value
    is ``p_decisive`` (< 0.025 exactly when its status is decisive: ``tests/test_verdicts.py``).
    """
    rows = []
    for paper, group in scorecard.groupby("paper", sort=True):
        judged = group[
            (group["draws"] == "interval") & group["status"].isin(["pass", "fail", "deviation", "inconclusive"])
        ]
        if judged.empty:
            continue
        p = judged["p_decisive"].astype(float).to_numpy()
        decisive = int(judged["status"].isin(["pass", "fail", "deviation"]).sum())
        holm, bh = (int(adjusted_decisive(p, method).sum()) for method in ("holm", "bh"))
        rows.append([paper, len(judged), decisive, decisive - holm, decisive - bh])
    return table(
        [
            "paper",
            "interval claims",
            "decisive (pass, fail, deviation)",
            "inconclusive under Holm",
            "inconclusive under BH",
        ],
        rows,
    )


def readings(scorecard: pd.DataFrame) -> str:
    """Render the paper sentences this replication judges, each with how it is read."""
    rows = [
        [f"`{claim['id']}`", claim["quote"], claim["reading"], claim["status"]]
        for _, claim in scorecard[scorecard["kind"] == "paper"].iterrows()
    ]
    return table(["id", "the paper says", "read as", "status"], rows)


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
        "CI": _interval(claim),
        "reason": claim["reason"] or "",
        "evidence": ", ".join(f"`{e}`" for e in str(claim["evidence"]).split(";") if e),
    }
    return [cells[column] for column in columns]


def _stated(epsilons: pd.Series) -> str:
    values = list(dict.fromkeys("∞" if value == float("inf") else f"{value:.4g}" for value in sorted(set(epsilons))))
    return f"{values[0]} … {values[-1]} ({len(values)} values)" if len(values) > 6 else ", ".join(values)


def privacy_spent(ledgers: dict[str, pd.DataFrame]) -> str:
    """Tabulate what each published ledger (``<figure>.ledger``) spent.

    Per ledger: the ε its points state, the releases and the mechanisms that spent it, and the worst
    ``ledger_error`` (and the least share spent, for a stated bound).
    """
    from dpreplication.accounting.ledger import ledger_digest

    columns = ["figure", "points", "releases", "stated ε per point", "spent by", "worst error", "least share spent"]
    rows = []
    for name, ledger in sorted(ledgers.items()):
        digest = ledger_digest(ledger)
        share = ledger["spent_share"].min() if "spent_share" in ledger else "—"
        worst = "—" if digest["worst_ledger_error"] is None else f"{digest['worst_ledger_error']:.2g}"
        rows.append(
            [f"`{name}.csv`", digest["points"], digest["releases"], _stated(ledger["stated_epsilon"]),
             ", ".join(f"`{m}`" for m in digest["mechanisms"]), worst, share]
        )  # fmt: skip
    return table(columns, rows)


def margins_section(margins: dict[str, tuple[float, str]]) -> str:
    """Render the registry's margins (quantity -> margin and source) as the page's section."""
    if not margins:
        return ""
    rows = [[f"`{quantity}`", cell(margin), source] for quantity, (margin, source) in margins.items()]
    return (
        "\n\n## Margins\n\nThe smallest effect of interest of each quantity from random draws, fixed from "
        "the paper's text before any result: an interval that excludes every value holding with this "
        "margin to spare fails. A quantity not listed has margin 0 (`fail` only outside the region).\n\n"
        + table(["quantity (table or table.column)", "margin", "source"], rows)
    )


def paper_page(
    scorecard: pd.DataFrame,
    paper: str,
    ledgers: dict[str, pd.DataFrame] | None = None,
    margins: dict[str, tuple[float, str]] | None = None,
) -> str:
    """Every claim of one paper: fail, missing, deviation, then pass; reasons and evidence shown.

    Then the registry's ``margins`` (:func:`margins_section`) and what each figure of private
    releases spent (``ledgers``: its published ledgers by name).
    """
    columns = ["id", "kind", "status", "claim", "criterion", "reproduced", "CI", "reason", "evidence"]
    claims = _ordered(scorecard[scorecard["paper"] == paper])
    rows = [_claim_cells(claim, columns) for _, claim in claims.iterrows()]
    spent = ""
    if ledgers:
        spent = (
            "\n\n## Privacy spent\n\nEach figure of private releases, from its privacy ledger (recorded where "
            "the noise is drawn, `docs/ledger.md`): the ε its points state, the mechanisms that spent it, and "
            "the worst `|spent/stated − 1|` (for a stated bound: the overspending, and the least share of it "
            "spent).\n\n" + privacy_spent(ledgers)
        )
    return (
        f"# Scorecard: {paper}\n\n"
        "Each `reproduced` value is read by the workflow from the figure and table data; the "
        "criterion is the paper's (kind `paper`) or the replication spec's (`spec`) value with its "
        "tolerance. A `deviation` names evidence claims that pass in this run; `missing` means not "
        f"computed. {RULE} [All papers](../scorecard.md).\n\n"
        + summary_table(scorecard[scorecard["paper"] == paper], link="scorecard.md")
        + "\n\n"
        + table(columns, rows)
        + margins_section(margins or {})
        + spent
        + "\n\n## Readings\n\nEvery sentence of the paper judged above, quoted, with how it is read (decided "
        "from the text, before the results). Where a sentence allows two readings both are published, "
        "the second naming the first: neither is chosen by its result.\n\n" + readings(claims) + "\n"
    )


def summary_page(scorecard: pd.DataFrame) -> str:
    """Render the landing page: kind × status per paper, then every claim that is not a pass."""
    columns = ["paper", "id", "kind", "status", "claim", "criterion", "reproduced", "CI", "reason"]
    open_claims = _ordered(scorecard[scorecard["status"] != "pass"])
    rows = [_claim_cells(claim, columns) for _, claim in open_claims.iterrows()]
    return (
        "# Scorecard\n\n"
        "Every claim of the four papers, recomputed by the workflow and judged: `pass`, `fail` (does "
        "not hold, whatever the reason), `deviation` (does not hold, with evidence claims that pass in "
        "the same run and show the cause), `inconclusive` (the random draws cannot tell) or `missing` "
        "(could not be computed). Kinds `paper` and `spec` are replication evidence; `diagnostic` and "
        "`sanity` are checks of this replication. "
        f"One page per paper has every claim.\n\n{RULE}\n\n"
        + summary_table(scorecard)
        + "\n\n## Multiple comparisons\n\nEach interval verdict errs with probability at most 2.5 % per side on "
        "its own (over all its looks). Adjusting "
        "over each paper's interval claims (one-sided level 0.025 per verdict), these many decisive "
        "verdicts would become inconclusive:\n\n"
        + multiplicity_table(scorecard)
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


NUMBER_COLUMNS = (
    "expected",
    "reproduced",
    "tolerance",
    "margin",
    "runs",
    "looks",
    "se",
    "ci_low",
    "ci_high",
    "runs_to_resolve",
    "p_decisive",
)
"""Scorecard columns that hold numbers: an empty cell (an exact claim's interval) is NaN."""


def read_scorecard(path: str | Path) -> pd.DataFrame:
    """Read a scorecard CSV: empty text cells stay empty strings, empty number cells are NaN."""
    scorecard = pd.read_csv(path, keep_default_na=False, na_values=["nan", "NaN"])
    for column in set(NUMBER_COLUMNS) & set(scorecard.columns):
        scorecard[column] = pd.to_numeric(scorecard[column], errors="coerce")
    return scorecard


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
