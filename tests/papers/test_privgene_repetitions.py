"""PrivGene's second stage: repetitions go to the cells that decide an open verdict, within budget (issues #32, #50).

The claims carry the registry's 1-point margin; the runs a cell needs are those at which its
interval (at the level the claim reads it) is narrower than the margin: its spread's, never its value's.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpreplication.pipeline.repetitions import looks, open_cells, plan
from dpreplication.replications.privgene import comparison_figures as pgc
from dpreplication.scorecard import Claim, evaluate_claims
from dpreplication.statistics.intervals import t_bounds

UNIT = {"PrivGene": 1.0, "FM": 1.0, "GUPT": 1.0, "PrivateERM": 1.0, "NoPrivacy": 1.0}
MARGIN = 0.01


def pair_rows(differences, se, runs=50, baseline="FM", looks=1):
    """A comparison_pairs block of one panel: PrivGene − ``baseline`` at ε = 0.05 … 1, Student-t intervals."""
    epsilons = [0.05, 0.1, 0.2, 0.4, 0.8, 1.0][: len(differences)]
    low, high = t_bounds(differences, np.full(len(differences), se), np.full(len(differences), runs), 0.025 / looks)
    return pd.DataFrame(
        {
            "dataset": "Adult",
            "task": "lr",
            "method": "PrivGene",
            "baseline": baseline,
            "epsilon": epsilons,
            "difference": differences,
            "difference_se": se,
            "difference_ci_low": low,
            "difference_ci_high": high,
            "runs": runs,
            "looks": looks,
            "ratio": 1.0,
            "ratio_ci_low": 0.9,
            "ratio_ci_high": 1.1,
            "log10_ratio": 0.0,
            "log10_ratio_se": 0.01,
        }
    )


def means_of(pairs):
    """The per-run mean over the grid of each pair, as if the cells were independent (its own interval)."""
    rows = []
    for (baseline,), block in pairs.groupby(["baseline"], sort=False):
        mean, se = block.difference.mean(), np.sqrt((block.difference_se**2).sum()) / len(block)
        low, high = t_bounds([mean], [se], [block.runs.min()], 0.025 / block.looks.iloc[0])
        rows.append(
            {
                "dataset": "Adult",
                "task": "lr",
                "method": "PrivGene",
                "baseline": baseline,
                "mean_difference": mean,
                "mean_difference_ci_low": low[0],
                "mean_difference_ci_high": high[0],
                "mean_difference_runs": block.runs.min(),
            }
        )
    return pd.DataFrame(rows)


def beats(baseline="FM", column="max_difference", **overrides):
    select = {"dataset": "Adult", "task": "lr", "method": "PrivGene", "baseline": baseline}
    base = dict(
        id=f"beats_{baseline}_{column}",
        paper="privgene",
        section="s",
        claim="x",
        expected=0.0,
        kind="paper",
        table="comparison_summary",
        column=column,
        comparison="lt",
        select=select,
        draws="interval",
        margin=MARGIN,
    )
    return Claim(**{**base, **overrides})


def tables_of(pairs):
    return {"comparison_pairs": pairs, "comparison_summary": pgc.pair_summary(pairs, means_of(pairs))}


def cells_of(claims, pairs, max_repetitions=100):
    tables = tables_of(pairs)
    scorecard = evaluate_claims(claims, tables)
    return open_cells(claims, scorecard, pairs, tables["comparison_summary"], 5, max_repetitions)


def repetitions_needed(se, k, runs=50, looks=1):
    """⌈runs · (width / margin)² / 5⌉ for a cell read at one-sided 0.025 / (looks · k)."""
    width = 2 * stats.t.isf(0.025 / looks / k, runs - 1) * se
    return math.ceil(math.ceil(runs * (width / MARGIN) ** 2) / 5)


def test_a_profile_with_a_second_stage_reads_its_verdicts_twice():
    assert looks({"budget_cpu_seconds": 300}) == 2 and looks({"budget_cpu_seconds": 0}) == 1


def test_only_the_open_cells_of_an_open_claim_are_extended_for_both_methods():
    pairs = pair_rows([-0.10, -0.08, -0.005, -0.06], se=0.003)  # only ε = 0.2 is within the margin of 0
    claim = beats()
    assert evaluate_claims([claim], tables_of(pairs)).status.item() == "inconclusive"
    cells = cells_of([claim], pairs)
    assert sorted(cells.method) == ["FM", "PrivGene"] and set(cells.epsilon) == {0.2}
    assert cells.repetitions.tolist() == [repetitions_needed(0.003, k=4)] * 2 and cells.resolvable.all()
    wide = pair_rows([-0.10, -0.08, -0.005, -0.06], se=0.008)  # 50 · (2 · 2.6 · 0.008 / 0.01)² ≫ 500 runs
    cells = cells_of([claim], wide)
    assert cells.repetitions.tolist() == [100, 100] and not cells.resolvable.any()


def test_the_runs_needed_depend_on_the_spread_not_on_the_value():
    """Two open cells of the same spread need the same runs wherever their values sit: no peeking at the effect."""
    near, far = pair_rows([-0.10, -0.001], 0.003), pair_rows([-0.10, -0.008], 0.003)
    assert cells_of([beats()], near).repetitions.tolist() == cells_of([beats()], far).repetitions.tolist()


def test_decided_claims_open_nothing():
    pairs = pair_rows([-0.10, -0.08, -0.05], se=0.005)
    claim = beats()
    assert evaluate_claims([claim], tables_of(pairs)).status.item() == "pass"
    assert cells_of([claim], pairs).empty
    tie = pair_rows([-0.10, -0.002], se=0.002)  # the margin fails a tie within reach: nothing to fund
    assert evaluate_claims([claim], tables_of(tie)).status.item() == "fail" and cells_of([claim], tie).empty


def test_the_plan_funds_the_cheapest_resolvable_claims_within_the_budget():
    cheap = pair_rows([-0.10, -0.005], 0.003, baseline="FM")
    dear = pair_rows([-0.10, -0.005], 0.004, baseline="GUPT")
    hopeless = pair_rows([-0.10, -0.005], 0.01, baseline="PrivateERM")
    pairs = pd.concat([cheap, dear, hopeless], ignore_index=True)
    claims = [beats("FM"), beats("GUPT"), beats("PrivateERM")]
    cells = cells_of(claims, pairs)
    needs = cells.groupby("claim").repetitions.max().to_dict()
    fm, gupt = repetitions_needed(0.003, k=2), repetitions_needed(0.004, k=2)
    assert needs == {
        "beats_FM_max_difference": fm,
        "beats_GUPT_max_difference": gupt,
        "beats_PrivateERM_max_difference": 100,
    }
    assert 10 < fm < gupt < 100
    funded = plan(cells, first_stage=10, budget=2 * (fm - 10), costs=UNIT)
    assert set(funded.claims) == {"beats_FM_max_difference"} and funded.repetitions.tolist() == [fm, fm]
    funded = plan(cells, first_stage=10, budget=10_000, costs=UNIT)
    served = {claim for claims in funded.claims for claim in claims.split(";")}
    assert served == {"beats_FM_max_difference", "beats_GUPT_max_difference"}  # never the hopeless one
    assert funded.set_index("method").repetitions.to_dict() == {"PrivGene": gupt, "FM": fm, "GUPT": gupt}
    assert plan(cells, first_stage=10, budget=0, costs=UNIT).empty


def test_noprivacy_is_one_cell_per_panel_at_the_most_any_epsilon_needs():
    pairs = pair_rows([-0.005, -0.004], 0.003, baseline="NoPrivacy")
    claim = beats("NoPrivacy")
    funded = plan(cells_of([claim], pairs), first_stage=10, budget=10_000, costs=UNIT)
    noprivacy = funded[funded.method == "NoPrivacy"]
    assert len(noprivacy) == 1 and np.isnan(noprivacy.epsilon.item())
    assert noprivacy.repetitions.item() == repetitions_needed(0.003, k=2)


def test_the_plan_costs_each_method_at_its_cpu_seconds():
    pairs = pd.concat(
        [pair_rows([-0.10, -0.005], 0.003, baseline="FM"), pair_rows([-0.10, -0.005], 0.003, baseline="GUPT")]
    )
    claims = [beats("FM"), beats("GUPT")]
    cells = cells_of(claims, pairs)
    extra = repetitions_needed(0.003, k=2) - 10
    costs = {**UNIT, "GUPT": 12.0}  # FM's claim costs 2 · extra, GUPT's 13 · extra
    assert set(plan(cells, first_stage=10, budget=3 * extra, costs=costs).claims) == {"beats_FM_max_difference"}
    served = {c for cs in plan(cells, first_stage=10, budget=14 * extra, costs=costs).claims for c in cs.split(";")}
    assert served == {"beats_FM_max_difference", "beats_GUPT_max_difference"}  # the shared PrivGene cell is paid once


def test_a_mean_over_the_grid_extends_every_cell_to_the_runs_its_own_interval_needs():
    pairs = pair_rows([-0.02, 0.004, -0.001], se=0.006)
    claim = beats(column="mean_difference")
    assert evaluate_claims([claim], tables_of(pairs)).status.item() == "inconclusive"
    cells = cells_of([claim], pairs)
    assert set(cells.epsilon) == {0.05, 0.1, 0.2} and cells.repetitions.nunique() == 1


@pytest.mark.parametrize("looks_", [1, 2])
def test_a_second_look_widens_every_interval_the_planner_reads(looks_):
    pairs = pair_rows([-0.10, -0.005], 0.003, looks=looks_)
    assert cells_of([beats()], pairs).repetitions.max() == repetitions_needed(0.003, k=2, looks=looks_)
