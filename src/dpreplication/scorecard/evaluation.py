"""Claims judged against the pipeline's tables: one scorecard row per claim.

A claim's status says exactly what was observed in this run:

- ``pass``: the comparison holds;
- ``fail``: it does not hold. A written explanation never changes that;
- ``deviation``: it does not hold, and the claim names ``evidence``: other claims of the same
  registry, each an ablation or diagnostic that *passes in this run* and shows the stated cause.
  If any evidence claim does not pass, the claim is ``fail``. The reason is a template filled
  with measured values (``{claim_id}`` or ``{claim_id:.3f}``; ``{reproduced}``/``{expected}``
  are the claim's own), so no number in it is typed in;
- ``inconclusive``: the value comes from random draws and its confidence interval neither lies in
  the accepted region nor outside it shrunk by the quantity's margin
  (:mod:`dpreplication.scorecard.uncertainty` states the rule);
- ``missing``: the value could not be computed (NaN or ±inf, a dataset that is not available, an
  absent optional library). Never pass and never deviation.

How a claim's value was obtained (its ``draws``) and what it is evidence of (its ``kind``):
:mod:`dpreplication.scorecard.claims`.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy.stats import norm

from dpreplication.scorecard.claims import COMPARISONS, PLACEHOLDER, Claim
from dpreplication.scorecard.uncertainty import interval_verdict, one_sided_level, p_decisive, runs_to_resolve
from dpreplication.tables import DATA_STATUS_COLUMN

COLUMNS = [
    "paper",
    "id",
    "kind",
    "section",
    "claim",
    "expected",
    "reproduced",
    "tolerance",
    "margin",
    "comparison",
    "status",
    "draws",
    "runs",
    "looks",
    "se",
    "ci_low",
    "ci_high",
    "runs_to_resolve",
    "p_decisive",
    "evidence",
    "reason",
    "quote",
    "reading",
]

STATUSES = ("fail", "missing", "inconclusive", "deviation", "pass")
"""Every status, in the order a reader needs them (what does not hold first)."""


def _matches(column: pd.Series, wanted) -> np.ndarray:
    """Rows whose cell equals ``wanted``: numbers within 1e-12 of a numeric column (NaN never), else as text.

    In NumPy, not pandas: a scorecard selects rows thousands of times (3 ms each in pandas).
    """
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and pd.api.types.is_numeric_dtype(column):
        values = column.to_numpy(dtype=float, na_value=np.nan)
        return np.abs(values - wanted) <= 1e-12 * max(1.0, abs(wanted))
    return column.astype(str).to_numpy() == str(wanted)


def selected_rows(claim: Claim, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Return the rows of ``claim.table`` matching ``claim.select`` (a missing table or column: ``KeyError``)."""
    if claim.table not in tables:
        raise KeyError(f"claim {claim.id}: no table {claim.table!r} (have {sorted(tables)})")
    frame = tables[claim.table]
    mask = np.ones(len(frame), dtype=bool)
    for key, wanted in claim.select.items():
        if key not in frame:
            raise KeyError(f"claim {claim.id}: table {claim.table!r} has no column {key!r}")
        mask &= _matches(frame[key], wanted)
    if claim.column not in frame:
        raise KeyError(f"claim {claim.id}: table {claim.table!r} has no column {claim.column!r}")
    return frame.iloc[np.flatnonzero(mask)]


def selected_row(claim: Claim, tables: dict[str, pd.DataFrame]) -> pd.Series:
    """Return the single row of ``claim.table`` matching ``claim.select``.

    A missing table or column raises ``KeyError``; any other number of matching rows ``ValueError``.
    """
    return _single(claim, selected_rows(claim, tables))


def _single(claim: Claim, rows: pd.DataFrame) -> pd.Series:
    if len(rows) != 1:
        raise ValueError(f"claim {claim.id}: {claim.select} selects {len(rows)} rows of {claim.table!r}, expected 1")
    return rows.iloc[0]


def lookup(claim: Claim, tables: dict[str, pd.DataFrame]) -> float:
    """Return the single value of ``claim.column`` in the row of ``claim.table`` matching ``claim.select``.

    A value that is not a number gives NaN. A reduced claim returns the largest value of its rows
    (NaN if there are none or any is NaN).
    """
    return _value(claim, selected_rows(claim, tables))


def _value(claim: Claim, rows: pd.DataFrame) -> float:
    if claim.reduce:
        values = pd.to_numeric(rows[claim.column], errors="coerce")
        return math.nan if values.empty else float(values.max(skipna=False))
    value = _single(claim, rows)[claim.column]
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def not_computed(claim: Claim, tables: dict[str, pd.DataFrame]) -> str:
    """Return the row's ``data_status`` text (why its values could not be computed), else ``""``."""
    return _why_not_computed(claim, selected_rows(claim, tables))


def _why_not_computed(claim: Claim, rows: pd.DataFrame) -> str:
    if claim.reduce:
        return ""
    status = _single(claim, rows).get(DATA_STATUS_COLUMN, "")
    return status if isinstance(status, str) else ""


def fill_reason(template: str, claim_id: str, values: dict[str, float]) -> str:
    """``template`` with each ``{id}`` / ``{id:format}`` replaced by that claim's measured value.

    ``reproduced`` and ``expected`` are the claim's own; the format defaults to ``.4g``.
    """

    def substitute(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2) or ".4g"
        value = values[f"{claim_id}.{name}"] if name in ("reproduced", "expected") else values[name]
        return format(value, spec)

    return PLACEHOLDER.sub(substitute, template)


def not_finite(claim: Claim, reproduced: float) -> str:
    """Return why a non-finite ``reproduced`` (NaN, +inf or -inf) scores ``missing``, else ``""``.

    A reduced claim's infinite worst case was computed (e.g. a point that spent ε = ∞): it is judged.
    """
    if math.isnan(reproduced):
        return f"not computed: {claim.table}.{claim.column} is empty or NaN"
    if math.isinf(reproduced) and not claim.reduce:
        return f"not computed: {claim.table}.{claim.column} is {reproduced}, not a finite number"
    return ""


def interval_of(claim: Claim, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
    """Return the uncertainty of an ``interval`` claim's value: ``runs``, ``looks``, ``se``, ``ci_low``, ``ci_high``.

    Read from the row's ``<column>_ci_low``/``<column>_ci_high`` (absent: ``KeyError``),
    ``<column>_se`` (else the half-width over the interval's normal quantile), ``<column>_runs``,
    ``runs`` or ``draws`` (else NaN) and ``looks`` (else 1).
    """
    return _interval_in(claim, selected_row(claim, tables))


def _interval_in(claim: Claim, row: pd.Series) -> dict[str, float]:
    bounds = [f"{claim.column}_ci_low", f"{claim.column}_ci_high"]
    absent = [name for name in bounds if name not in row.index]
    if absent:
        raise KeyError(f"claim {claim.id}: {claim.table!r} is declared interval but has no column {absent}")
    ci_low, ci_high = (float(row[name]) for name in bounds)
    looks = int(row["looks"]) if "looks" in row.index else 1
    se_column = f"{claim.column}_se"
    z = float(norm.isf(one_sided_level(looks)))
    se = float(row[se_column]) if se_column in row.index else (ci_high - ci_low) / (2 * z)
    runs_column = next((name for name in (f"{claim.column}_runs", "runs", "draws") if name in row.index), None)
    runs = float(row[runs_column]) if runs_column else math.nan
    return {"runs": runs, "looks": looks, "se": se, "ci_low": ci_low, "ci_high": ci_high}


NO_INTERVAL = {"runs": math.nan, "looks": math.nan, "se": math.nan, "ci_low": math.nan, "ci_high": math.nan}


def seed_tolerance(tolerance: float, seed_sd: float, seeds: float) -> float:
    """Return ``√(τ² + 4s²(1 + 1/S))``: the tolerance τ widened by the seed spread.

    τ is two standard errors of the paper's number; the paper's one replicate and our mean over
    ``S`` replicates differ by ``s²`` and ``s²/S`` in variance, whose two standard errors are added.
    """
    return math.sqrt(tolerance**2 + 4 * seed_sd**2 * (1 + 1 / seeds))


def spread_of(claim: Claim, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
    """Return the seed spread of a ``seeds`` claim's value as ``runs`` (S) and ``se`` (the sample std s).

    Read from the row's ``<column>_seed_sd`` and ``seeds`` (absent: ``KeyError``).
    """
    return _spread_in(claim, selected_row(claim, tables))


def _spread_in(claim: Claim, row: pd.Series) -> dict[str, float]:
    absent = [name for name in (f"{claim.column}_seed_sd", "seeds") if name not in row.index]
    if absent:
        raise KeyError(f"claim {claim.id}: {claim.table!r} is declared seeds but has no column {absent}")
    return {**NO_INTERVAL, "runs": float(row["seeds"]), "se": float(row[f"{claim.column}_seed_sd"])}


def uncertainty_of(claim: Claim, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
    """Return the ``runs``, ``se`` and interval columns of a claim, by its ``draws``."""
    return _uncertainty_in(claim, selected_rows(claim, tables))


def _uncertainty_in(claim: Claim, rows: pd.DataFrame) -> dict[str, float]:
    if claim.draws == "interval":
        return _interval_in(claim, _single(claim, rows))
    if claim.draws == "seeds":
        return _spread_in(claim, _single(claim, rows))
    return NO_INTERVAL


def judged_claim(claim: Claim, uncertainty: dict[str, float]) -> Claim:
    """Return the claim as judged: a ``seeds`` claim with its tolerance widened (:func:`seed_tolerance`)."""
    if claim.draws != "seeds":
        return claim
    return replace(claim, tolerance=seed_tolerance(claim.tolerance, uncertainty["se"], uncertainty["runs"]))


def _judge(claim: Claim, reproduced: float, interval: dict) -> tuple[str, dict]:
    """Return the status and the interval columns of one computed claim (see the module docstring)."""
    if claim.draws != "interval":
        return ("pass" if claim.holds(reproduced) else "fail"), {"runs_to_resolve": math.nan, "p_decisive": math.nan}
    low, high, strict = claim.region
    ci_low, ci_high = interval["ci_low"], interval["ci_high"]
    margin, looks = claim.margin, interval["looks"]
    status = interval_verdict(low, high, strict, ci_low, ci_high, margin)
    return status, {
        "runs_to_resolve": runs_to_resolve(low, high, reproduced, ci_low, ci_high, interval["runs"], margin),
        "p_decisive": p_decisive(low, high, reproduced, ci_low, ci_high, margin, looks),
    }


def open_reason(claim: Claim, interval: dict) -> str:
    """Why an ``inconclusive`` claim is open, and the runs that would decide it at the observed spread."""
    level = 100 * (1 - 2 * one_sided_level(int(interval["looks"])))
    bounds = f"[{interval['ci_low']:.4g}, {interval['ci_high']:.4g}]"
    if claim.margin:
        shrunk = f"outside the region shrunk by the margin {claim.margin:g}"
    else:
        shrunk = "outside it (no margin is declared for this quantity)"
    unspent = (
        "the second stage did not fund them (over its budget, or past the runs it may add)"
        if interval["looks"] > 1
        else "no second stage adds runs to this table"
    )
    return (
        f"the {level:g} % interval {bounds} over {interval['runs']:.0f} runs lies neither in the accepted region "
        f"nor {shrunk}; about {interval['runs_to_resolve']:.0f} runs would decide it at the observed spread: "
        f"{unspent}"
    )


def evaluate_claims(claims: list[Claim], tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One scorecard row per claim, with the statuses of the module docstring."""
    observed, reasons, values, uncertainty, judged = {}, {}, {}, {}, {}
    for claim in claims:
        rows = selected_rows(claim, tables)  # searched once
        reproduced = _value(claim, rows)
        values[claim.id] = values[f"{claim.id}.reproduced"] = reproduced
        values[f"{claim.id}.expected"] = claim.expected
        interval = _uncertainty_in(claim, rows)
        why_not = _why_not_computed(claim, rows) or not_finite(claim, reproduced)
        if (
            not why_not
            and claim.draws == "interval"
            and not (math.isfinite(interval["ci_low"]) and math.isfinite(interval["ci_high"]))
        ):
            why_not = f"not computed: {claim.table}.{claim.column} has no finite 95 % confidence interval"
        if not why_not and claim.draws == "seeds" and not math.isfinite(interval["se"]):
            why_not = f"not computed: {claim.table}.{claim.column} has no seed spread (it needs at least 2 seeds)"
        judged[claim.id] = judged_claim(claim, interval) if not why_not else claim
        if why_not:
            observed[claim.id], reasons[claim.id] = "missing", why_not
            uncertainty[claim.id] = {**interval, "runs_to_resolve": math.nan, "p_decisive": math.nan}
        else:
            observed[claim.id], verdict = _judge(judged[claim.id], reproduced, interval)
            reasons[claim.id] = ""
            uncertainty[claim.id] = {**interval, **verdict}
    rows = []
    for claim in claims:
        status, reason = observed[claim.id], reasons[claim.id]
        evidence = claim.deviation.evidence if claim.deviation else ()
        if status == "fail" and claim.deviation is not None:
            unshown = [e for e in evidence if observed[e] != "pass"]
            if unshown:
                reason = "stated cause not shown: evidence " + ", ".join(f"{e} is {observed[e]}" for e in unshown)
            else:
                status, reason = "deviation", fill_reason(claim.deviation.reason, claim.id, values)
        if status == "inconclusive":
            reason = open_reason(claim, uncertainty[claim.id])
        rows.append(
            {
                "paper": claim.paper,
                "id": claim.id,
                "kind": claim.kind,
                "section": claim.section,
                "claim": claim.claim,
                "expected": claim.expected,
                "reproduced": values[claim.id],
                "tolerance": judged[claim.id].tolerance,
                "margin": claim.margin if claim.draws == "interval" else math.nan,
                "comparison": COMPARISONS[claim.comparison],
                "status": status,
                "draws": claim.draws,
                **uncertainty[claim.id],
                "evidence": ";".join(evidence),
                "reason": reason,
                "quote": claim.quote,
                "reading": claim.reading,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def duplicate_judgements(claims: list[Claim], tables: dict[str, pd.DataFrame]) -> list[tuple[str, ...]]:
    """Return the groups of claims that judge the same cell (table, selected row, column): one fact judged twice.

    The declared second reading of a sentence (``alternative_of``) may judge its first reading's
    cell; any other claim on that cell is a duplicate. Claims whose table is not in ``tables`` are
    skipped.
    """
    cells: dict[tuple, list[str]] = {}
    for claim in claims:
        if claim.table not in tables:
            continue
        row = tuple(selected_rows(claim, tables).index) if claim.reduce else selected_row(claim, tables).name
        cells.setdefault((claim.table, row, claim.column), []).append(claim)
    alternatives = {(c.id, c.alternative_of) for c in claims if c.alternative_of}
    return [
        tuple(c.id for c in group)
        for group in cells.values()
        if len(group) > 1
        and not (len(group) == 2 and {(group[0].id, group[1].id), (group[1].id, group[0].id)} & alternatives)
    ]
