"""A self-contained HTML report of the published figures and tables and the scorecard.

The report is a landing page (what this is, the papers, the scorecard), then every published
figure and table with its caption and the parameters it was actually computed with (read from its
provenance sidecar), and the full scorecard as tables.

Built by the workflow's ``report_html`` rule (``make report``) from the published outputs only,
so it needs no Snakemake job metadata and works in a fresh clone.
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dpreplication.pipeline.provenance import read_sidecar
from dpreplication.scorecard.evaluation import STATUSES
from dpreplication.scorecard.pages import tally

PAPERS = {
    "permute_and_flip": "Ding et al. 2021, Permute-and-flip is identical to report-noisy-max with exponential noise "
    "(with McKenna & Sheldon 2020's utility study)",
    "truncated_laplace": "Geng, Ding, Guo & Kumar 2020, Tight analysis of privacy and utility tradeoff in approximate "
    "differential privacy (the truncated Laplacian mechanism)",
    "darrm": "Jiang, Zhang & Joshi 2024, Optimized tradeoffs for private prediction with majority ensembling (DaRRM)",
    "privgene": "Zhang, Xiao, Yang, Zhang & Winslett 2013, PrivGene: differentially private model fitting using "
    "genetic algorithms",
}
TABLE_ROWS = 40
"""Rows of a table shown in the report; the CSV beside it has all of them."""

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#1b1f24;line-height:1.45}
h1{font-size:1.8em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:2em}
nav a{margin-right:1em}figure{margin:1.5em 0;border:1px solid #d0d7de;border-radius:6px;padding:1em;overflow-x:auto}
figure img{max-width:100%}figcaption{font-size:.92em}table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}th{background:#f6f8fa}
code{background:#f6f8fa;padding:0 .2em;border-radius:3px}details{margin:.4em 0}
.fail{color:#b42318;font-weight:600}.missing{color:#8a6d00;font-weight:600}.deviation{color:#6941c6}.pass{color:#067647}
.meta{color:#57606a;font-size:.85em}.parameters{font-size:.9em;margin:.3em 0}.wide{overflow-x:auto}
"""


@dataclass(frozen=True)
class ReportItem:
    """One published output shown in the report: a PNG figure or a CSV table."""

    paper: str
    name: str
    path: Path
    caption: Path
    sidecar: Path | None = None


_CAPTION_MARKUP = re.compile(r"``(?P<literal>.+?)``|`(?P<interpreted>(?:[^`\\]|\\.)+)`|\\(?P<escaped>.)", re.S)
"""The reST inline markup a caption uses: an ``inline literal``, `interpreted text`, a backslash escape."""


def _unescape_rst(text: str) -> str:
    r"""Text with reST's backslash escapes resolved: ``\x`` is ``x``; an escaped space or newline vanishes."""
    return re.sub(r"\\(.)", lambda m: "" if m[1].isspace() else m[1], text, flags=re.S)


def caption_html(text: str) -> str:
    r"""Render a caption written for Snakemake's reStructuredText reports as HTML.

    An inline literal (double backticks) and interpreted text (single backticks, reST's default
    role) become ``<code>``; a backslash escape such as ``\|`` is the character it escapes, as reST
    shows it (an escaped space vanishes); everything is HTML-escaped.
    """
    parts, end = [], 0
    text = text.strip()
    for match in _CAPTION_MARKUP.finditer(text):
        parts.append(html.escape(text[end : match.start()]))
        if match["literal"] is not None:
            parts.append(f"<code>{html.escape(match['literal'])}</code>")
        elif match["interpreted"] is not None:
            parts.append(f"<code>{html.escape(_unescape_rst(match['interpreted']))}</code>")
        else:
            parts.append(html.escape(_unescape_rst(match[0])))  # one escaped character
        end = match.end()
    parts.append(html.escape(text[end:]))
    return "".join(parts)


def _status(status: str) -> str:
    return f'<span class="{html.escape(status)}">{html.escape(status)}</span>'


def frame_html(frame: pd.DataFrame, rows: int | None = None, status_column: str | None = None) -> str:
    """Render ``frame`` as an HTML table (its first ``rows`` rows), floats to 6 significant digits.

    The cells of ``status_column`` are styled by their status.
    """
    shown = frame if rows is None else frame.head(rows)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in shown.columns)
    body = []
    for row in shown.itertuples(index=False, name=None):  # keeps each column's dtype (iterrows upcasts ints)
        cells = []
        for column, value in zip(shown.columns, row):
            text = f"{value:.6g}" if isinstance(value, float) else str(value)
            cells.append(f"<td>{_status(text) if column == status_column else html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = (
        ""
        if rows is None or len(frame) <= rows
        else f'<p class="meta">First {rows} of {len(frame)} rows; the CSV has all of them.</p>'
    )
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>{more}'


def parameters_html(sidecar: Path | None) -> str:
    """Render the parameters recorded in ``sidecar`` when the output was computed.

    Its one-line summary (the sidecar's ``parameters``) is shown in full; the settings, seed, profile
    and commit fold out under it. A rule without a seed draws nothing at random (every rule whose
    inputs are seeded carries one, ``tests/test_published_settings.py``), and says so.
    """
    if sidecar is None or not sidecar.is_file():
        return '<p class="meta">No provenance sidecar.</p>'
    record = read_sidecar(sidecar)
    dirty = {True: " (source tree modified)", False: "", None: ""}[record.get("dirty")]
    settings = json.dumps(record.get("settings"), indent=1, sort_keys=True, default=str)
    line = f'<p class="parameters">{html.escape(record["parameters"])}</p>' if record.get("parameters") else ""
    seed = "no random draws" if record.get("seed") is None else f'seed {html.escape(str(record["seed"]))}'
    return (
        f'{line}<details><summary class="meta">Parameters used: profile {html.escape(str(record.get("profile")))}, '
        f'{seed}, commit {html.escape(str(record.get("commit", ""))[:12])}'
        f'{dirty}</summary><pre>{html.escape(settings)}</pre></details>'
    )


def ledger_html(sidecar: Path | None) -> str:
    """Render the privacy ledger of an output's points: its sidecar's digest and ``<name>.ledger.csv``.

    ``""`` for an output without one (it releases nothing private).
    """
    if sidecar is None or not sidecar.is_file():
        return ""
    digest = read_sidecar(sidecar).get("ledger")
    table = sidecar.with_suffix(".ledger.csv")
    if digest is None or not table.is_file():
        return ""
    mechanisms = ", ".join(digest["mechanisms"]) or "nothing"
    worst = "—" if digest["worst_ledger_error"] is None else f"{digest['worst_ledger_error']:.2g}"
    return (
        f'<details><summary class="meta">Privacy ledger: {digest["points"]} points, {digest["releases"]} releases '
        f"spent by {html.escape(mechanisms)}; worst |spent ε / stated ε − 1| = {worst}"
        f"</summary>{frame_html(pd.read_csv(table))}</details>"
    )


def item_html(item: ReportItem) -> str:
    """Render one output as a figure: the PNG inline or the table's first :data:`TABLE_ROWS` rows.

    Under it come the caption, the parameters the output was computed with (:func:`parameters_html`)
    and, for private releases, their privacy ledger (:func:`ledger_html`).
    """
    caption = caption_html(item.caption.read_text()) if item.caption.is_file() else ""
    if item.path.suffix == ".png":
        data = base64.b64encode(item.path.read_bytes()).decode()
        shown = f'<img alt="{html.escape(item.name)}" src="data:image/png;base64,{data}">'
    else:
        shown = frame_html(pd.read_csv(item.path), TABLE_ROWS)
    return (
        f'<figure id="{html.escape(item.paper)}-{html.escape(item.name)}">{shown}'
        f'<figcaption><p><strong>{html.escape(item.name)}</strong> — {caption}</p>'
        f"{parameters_html(item.sidecar)}{ledger_html(item.sidecar)}</figcaption></figure>"
    )


def scorecard_html(scorecard: pd.DataFrame) -> str:
    """Kind × status per paper, then each paper's claims, what does not hold first."""
    counts = tally(scorecard)[["paper", "kind", "claims", *STATUSES]]
    parts = [frame_html(counts)]
    order = {s: i for i, s in enumerate(STATUSES)}
    for paper, claims in scorecard.groupby("paper", sort=True):
        claims = claims.assign(_order=claims["status"].map(order)).sort_values("_order", kind="stable")
        shown = claims[["id", "kind", "status", "claim", "expected", "reproduced", "reason"]]
        open_count = int((claims["status"] != "pass").sum())
        parts.append(
            f"<details><summary>{html.escape(paper)}: {len(claims)} claims, {open_count} not a pass"
            f"</summary>{frame_html(shown, status_column='status')}</details>"
        )
    return "".join(parts)


def build_report(items: list[ReportItem], scorecard: pd.DataFrame, profile: str, preface: str = "") -> str:
    """Build the whole report as one HTML document; ``preface`` (HTML) goes before the scorecard."""
    papers = [p for p in PAPERS if any(i.paper == p for i in items)]
    nav = "".join(f'<a href="#{p}">{html.escape(p)}</a>' for p in ["scorecard", *papers])
    paper_list = "".join(f'<li><a href="#{p}"><code>{p}</code></a>: {html.escape(PAPERS[p])}</li>' for p in papers)
    sections = []
    for paper in papers:
        shown = "".join(item_html(i) for i in items if i.paper == paper)
        sections.append(f'<h2 id="{paper}">{html.escape(PAPERS[paper])}</h2>{shown}')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dpreplication report ({html.escape(profile)} profile)</title>
<style>{_STYLE}</style></head><body>
<h1>Differential-privacy replications: report</h1>
<nav>{nav}</nav>
<p>A reference replication of four differential-privacy papers: every figure and table below was
regenerated by the Snakemake workflow of this repository ({html.escape(profile)} profile) from the
shared mechanisms of the <code>dpreplication</code> package, and every number the papers state is
recomputed and judged in the scorecard. Each figure shows its caption and, under it, the parameters
it was actually computed with (from its provenance sidecar); its data are in the CSV beside it.</p>
<ul>{paper_list}</ul>
{preface}
<h2 id="scorecard">Scorecard</h2>
<p><code>fail</code>: the claim does not hold here, whatever the reason. <code>deviation</code>: it does not
hold, and evidence claims that pass in the same run show the cause. <code>missing</code>: it could not be
computed. Kinds <code>paper</code> and <code>spec</code> are the replication evidence; <code>diagnostic</code>
and <code>sanity</code> check this replication.</p>
{scorecard_html(scorecard)}
{''.join(sections)}
</body></html>
"""
