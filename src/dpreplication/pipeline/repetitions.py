"""PrivGene Figs 3–4, second stage: more repetitions only where a verdict is still open (issue #32).

After the first-stage repetitions, the comparison claims of the registry are judged on the
first-stage tables. A claim that is ``inconclusive`` names the cells (dataset, task, method, ε)
whose per-ε 95 % intervals straddle a bound of its criterion; each such cell, for both methods of
the pair, gets the repetitions that would resolve it at the observed spread (the scorecard's
``runs_to_resolve``), up to ``max_repetitions`` (the paper's 500 runs are 100 repetitions of
5-fold CV). Claims are funded cheapest first until the profile's ``budget`` of CPU-seconds is
spent (each method's measured cost of one repetition of one cell), so the plan is a deterministic
function of the first-stage tables and the configuration.

A second-stage repetition of a cell runs the same job on the same seeded streams as a first-stage
one would (:func:`~dpreplication.replications.privgene.jobs.comparison` at one ε), so a
rerun gives the same numbers and a profile with more first-stage repetitions agrees on the runs
they share. Deciding where to add runs from the first look's intervals is a two-look sequential
design: a verdict's error rate can reach about twice its single-look 5 %, which the scorecard page
states.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpreplication.replications.privgene.methods import EPSILON_FREE
from dpreplication.scorecard.claims import Claim
from dpreplication.scorecard.uncertainty import runs_to_resolve

PAIR_COLUMNS = {
    "max_difference": "all",
    "min_difference": "all",
    "mean_difference": "all",
    "max_abs_difference": "all",
    "max_difference_above_smallest_epsilon": "above_smallest",
    "difference_at_smallest_epsilon": "smallest",
    "difference_at_largest_epsilon": "largest",
}
"""A comparison_summary column over the paired differences -> the ε of the grid it summarises."""

CELL_COLUMNS = ["dataset", "task", "method", "epsilon"]


def _epsilons(grid: np.ndarray, which: str) -> np.ndarray:
    grid = np.sort(grid)
    return {"all": grid, "above_smallest": grid[1:], "smallest": grid[:1], "largest": grid[-1:]}[which]


def _per_epsilon(claim: Claim, pairs: pd.DataFrame) -> pd.DataFrame | None:
    """Return the paired rows behind one claim: value and interval per ε (``|difference|`` for an absolute summary)."""
    select = claim.select
    if claim.table == "comparison_pairs" and claim.column == "difference":
        keys = ["dataset", "task", "method", "baseline", "epsilon"]
    elif claim.table == "comparison_summary" and claim.column in PAIR_COLUMNS:
        keys = ["dataset", "task", "method", "baseline"]
    else:
        return None
    mask = np.logical_and.reduce(
        [np.isclose(pairs[k], select[k]) if k == "epsilon" else pairs[k] == select[k] for k in keys]
    )
    rows = pairs.loc[mask]
    if claim.table == "comparison_summary":
        rows = rows[rows.epsilon.isin(_epsilons(rows.epsilon.to_numpy(), PAIR_COLUMNS[claim.column]))]
    value, low, high = rows.difference, rows.difference_ci_low, rows.difference_ci_high
    if claim.column == "max_abs_difference":
        straddles = (low <= 0) & (high >= 0)
        value, low, high = (
            value.abs(),
            np.minimum(low.abs(), high.abs()).where(~straddles, 0.0),
            np.maximum(low.abs(), high.abs()),
        )
    return pd.DataFrame({"epsilon": rows.epsilon, "value": value, "low": low, "high": high, "runs": rows.runs})


def open_cells(
    claims: list[Claim], scorecard: pd.DataFrame, pairs: pd.DataFrame, folds: int, max_repetitions: int
) -> pd.DataFrame:
    """Return the cells each inconclusive pair claim needs, with the repetitions that would resolve them.

    One row per (claim, dataset, task, method, ε): both methods of the claim's pair at every ε
    whose interval straddles a bound of the claim's accepted region (every ε of a mean), with
    ``repetitions`` = ⌈runs_to_resolve / folds⌉ at that ε, capped at ``max_repetitions``, and
    ``resolvable``: whether the cap suffices at the observed spread. Claims on other tables
    (levels, ratios, Fig. 5) are not extended.
    """
    status = scorecard.set_index("id").status
    rows = []
    for claim in claims:
        if status.get(claim.id) != "inconclusive":
            continue
        cells = _per_epsilon(claim, pairs)
        if cells is None:
            continue
        low, high, _ = claim.region
        for cell in cells.itertuples(index=False):
            straddles = cell.low < low <= cell.high or cell.low <= high < cell.high
            if not straddles and claim.column != "mean_difference":
                continue
            needed = runs_to_resolve(low, high, cell.value, cell.low, cell.high, cell.runs) / folds
            for method in (claim.select["method"], claim.select["baseline"]):
                rows.append(
                    {
                        "claim": claim.id,
                        "dataset": claim.select["dataset"],
                        "task": claim.select["task"],
                        "method": method,
                        "epsilon": cell.epsilon,
                        "repetitions": min(max_repetitions, math.ceil(needed))
                        if math.isfinite(needed)
                        else max_repetitions,
                        "resolvable": needed <= max_repetitions,
                    }
                )
    return pd.DataFrame(rows, columns=["claim", *CELL_COLUMNS, "repetitions", "resolvable"])


def _cell(cell) -> tuple:
    """Return a cell's key; an ε-free method's (NoPrivacy) is one cell per panel, ε None."""
    return cell.dataset, cell.task, cell.method, None if cell.method in EPSILON_FREE else float(cell.epsilon)


def plan(cells: pd.DataFrame, first_stage: int, budget: float, costs: dict[str, float]) -> pd.DataFrame:
    """Plan the second stage: per cell, the repetitions to run after the first stage's ``first_stage``.

    Claims that the cap resolves at the observed spread are funded whole, cheapest first (cost:
    the repetitions beyond those already planned, each at its method's ``costs`` in CPU-seconds),
    while the total stays within ``budget`` CPU-seconds; a cell shared by funded claims runs the
    most any of them needs. Columns: dataset, task, method, ε, ``repetitions`` (the total, first
    stage included) and ``claims`` (the funded claims it serves, ``;``-separated). An ε-free
    method (NoPrivacy) is one cell per panel, its ε NaN.
    """
    columns = [*CELL_COLUMNS, "repetitions", "claims"]
    if cells.empty or budget <= 0:
        return pd.DataFrame(columns=columns)
    hopeless = set(cells.claim[~cells.resolvable.astype(bool)])
    wanted = cells[(cells.repetitions > first_stage) & ~cells.claim.isin(hopeless)]
    planned: dict[tuple, int] = {}
    served: dict[tuple, list[str]] = {}
    spent = 0
    seconds = wanted.method.map(costs) * (wanted.repetitions - first_stage)
    for claim in seconds.groupby(wanted.claim, sort=False).sum().sort_values(kind="stable").index:
        mine = wanted[wanted.claim == claim]
        extra: dict[tuple, int] = {}
        for cell in mine.itertuples(index=False):
            key = _cell(cell)
            extra[key] = max(extra.get(key, 0), cell.repetitions - planned.get(key, first_stage))
        cost = sum(max(e, 0) * costs[key[2]] for key, e in extra.items())
        if spent + cost > budget:
            continue
        spent += cost
        for cell in mine.itertuples(index=False):
            key = _cell(cell)
            planned[key] = max(planned.get(key, first_stage), cell.repetitions)
            served.setdefault(key, []).append(claim)
    rows = [
        {
            "dataset": k[0],
            "task": k[1],
            "method": k[2],
            "epsilon": np.nan if k[3] is None else k[3],
            "repetitions": n,
            "claims": ";".join(dict.fromkeys(served[k])),
        }
        for k, n in planned.items()
    ]
    return pd.DataFrame(rows, columns=columns)
