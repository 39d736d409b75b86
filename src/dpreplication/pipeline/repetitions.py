"""PrivGene Figs 3–4, second stage: more repetitions only where a verdict is still open (issue #32, #50).

After the first-stage repetitions, the comparison claims of the registry are judged on the
first-stage tables. A claim that is ``inconclusive`` names the cells (dataset, task, method, ε)
whose own interval, at the level the claim reads it, neither passes nor fails under the claim's
margin; each such cell, for both methods of the pair, gets the repetitions at which an interval
of its observed spread is narrower than the margin (:func:`~dpreplication.scorecard.uncertainty.runs_to_decide`:
then it always decides), up to ``max_repetitions`` (the paper's 500 runs are 100 repetitions of
5-fold CV). Claims are funded cheapest first until the profile's ``budget`` of CPU-seconds is
spent (each method's measured cost of one repetition of one cell), so the plan is a deterministic
function of the first-stage tables and the configuration.

The looks. The runs added depend on the first stage's spread and the margin, never on the value
(sample-size re-estimation from the nuisance parameter), and whether a claim gets them depends on
its first look. A verdict may thus be read twice; every verdict of a profile with a second stage
uses intervals at one-sided level 0.025 / 2 at both looks (:func:`looks`; Bonferroni over looks,
the conservative case of an alpha-spending design), so its error over both looks stays ≤ 2.5 % per
side whichever look decides it (``tests/papers/test_privgene_sequential.py`` simulates it).

A second-stage repetition of a cell runs the same job on the same seeded streams as a first-stage
one would (:func:`~dpreplication.replications.privgene.jobs.comparison` at one ε), so a
rerun gives the same numbers and a profile with more first-stage repetitions agrees on the runs
they share.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpreplication.replications.privgene.methods import EPSILON_FREE
from dpreplication.scorecard.claims import Claim
from dpreplication.scorecard.uncertainty import effective_margin, interval_verdict, one_sided_level, runs_to_decide
from dpreplication.statistics.intervals import abs_bounds, t_bounds

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


def looks(second_stage: dict) -> int:
    """Return how many times a Figs 3–4 verdict may be read: 2 when the profile funds a second stage, else 1."""
    return 2 if second_stage.get("budget_cpu_seconds", 0) > 0 else 1


def _epsilons(grid: np.ndarray, which: str) -> np.ndarray:
    grid = np.sort(grid)
    return {"all": grid, "above_smallest": grid[1:], "smallest": grid[:1], "largest": grid[-1:]}[which]


def _per_epsilon(claim: Claim, pairs: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame | None:
    """Return the cells behind one claim, each with its interval at the level the claim reads it.

    A summary over ``k`` cells reads each at one-sided ``α / k`` (Bonferroni, as
    :func:`~dpreplication.replications.privgene.comparison_figures.pair_summary` does; ``|difference|``
    on both sides); a mean over the grid is read on its own interval, which every cell shares.
    """
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
    alpha = one_sided_level(int(rows.looks.iloc[0])) / len(rows)
    value, runs = rows.difference.to_numpy(), rows.runs.to_numpy()
    low, high = t_bounds(value, rows.difference_se, runs, alpha)
    if claim.column == "max_abs_difference":
        value, (low, high) = np.abs(value), abs_bounds(low, high)
    if claim.column == "mean_difference":
        mean = summary.loc[np.logical_and.reduce([summary[k] == select[k] for k in keys])].iloc[0]
        value = np.full(len(rows), mean.mean_difference)
        low, high = np.full(len(rows), mean.mean_difference_ci_low), np.full(len(rows), mean.mean_difference_ci_high)
        runs = np.full(len(rows), mean.mean_difference_runs)
    return pd.DataFrame({"epsilon": rows.epsilon, "value": value, "low": low, "high": high, "runs": runs})


def open_cells(
    claims: list[Claim],
    scorecard: pd.DataFrame,
    pairs: pd.DataFrame,
    summary: pd.DataFrame,
    folds: int,
    max_repetitions: int,
) -> pd.DataFrame:
    """Return the cells each inconclusive pair claim needs, with the repetitions that would decide them.

    One row per (claim, dataset, task, method, ε): both methods of the claim's pair at every ε
    whose interval (at the claim's level for it, :func:`_per_epsilon`) is still open under the
    claim's region and margin (every ε of a mean), with ``repetitions`` = ⌈runs_to_decide /
    folds⌉ (the spread's, never the value's), capped at ``max_repetitions``, and ``resolvable``:
    whether the cap suffices. Claims on other tables (ratios, Fig. 5) are not extended.
    """
    status = scorecard.set_index("id").status
    rows = []
    for claim in claims:
        if status.get(claim.id) != "inconclusive":
            continue
        cells = _per_epsilon(claim, pairs, summary)
        if cells is None:
            continue
        low, high, strict = claim.region
        margin = effective_margin(low, high, claim.margin)
        for cell in cells.itertuples(index=False):
            verdict = interval_verdict(low, high, strict, cell.low, cell.high, claim.margin)
            if verdict != "inconclusive" and claim.column != "mean_difference":
                continue
            needed = runs_to_decide(cell.low, cell.high, cell.runs, margin) / folds
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
