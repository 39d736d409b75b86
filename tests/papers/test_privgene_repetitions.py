"""PrivGene's second stage: repetitions go to the cells that decide an open verdict, within budget (issue #32)."""

import numpy as np
import pandas as pd

from dpreplication.pipeline.repetitions import open_cells, plan
from dpreplication.replications.privgene import comparison_figures as pgc
from dpreplication.scorecard import Claim, evaluate_claims

UNIT = {"PrivGene": 1.0, "FM": 1.0, "GUPT": 1.0, "PrivateERM": 1.0, "NoPrivacy": 1.0}


def pair_rows(differences, half_width, runs=50, baseline="FM"):
    """A comparison_pairs block of one panel: PrivGene − ``baseline`` at ε = 0.05 … 1."""
    epsilons = [0.05, 0.1, 0.2, 0.4, 0.8, 1.0][: len(differences)]
    frame = pd.DataFrame(
        {
            "dataset": "Adult",
            "task": "lr",
            "method": "PrivGene",
            "baseline": baseline,
            "epsilon": epsilons,
            "difference": differences,
            "runs": runs,
            "ratio": 1.0,
            "ratio_ci_low": 0.9,
            "ratio_ci_high": 1.1,
        }
    )
    return frame.assign(
        difference_ci_low=frame.difference - half_width, difference_ci_high=frame.difference + half_width
    )


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
    )
    return Claim(**{**base, **overrides})


def judged(claims, pairs):
    tables = {"comparison_pairs": pairs, "comparison_summary": pgc.pair_summary(pairs)}
    return evaluate_claims(claims, tables)


def test_only_the_straddling_cells_of_an_open_claim_are_extended_for_both_methods():
    pairs = pair_rows([-0.10, -0.08, -0.005, -0.06], half_width=0.02)  # only ε = 0.2 straddles 0
    claim = beats()
    assert judged([claim], pairs).status.item() == "inconclusive"
    cells = open_cells([claim], judged([claim], pairs), pairs, folds=5, max_repetitions=100)
    assert sorted(cells.method) == ["FM", "PrivGene"] and set(cells.epsilon) == {0.2}
    # 50 runs · (0.02 / 0.005)² = 800 runs = 160 repetitions > the cap: capped and not resolvable
    assert cells.repetitions.tolist() == [100, 100] and not cells.resolvable.any()
    closer = pair_rows([-0.10, -0.08, -0.015, -0.06], half_width=0.02)  # 50 · (0.02/0.015)² → 89 runs
    cells = open_cells([claim], judged([claim], closer), closer, folds=5, max_repetitions=100)
    assert cells.repetitions.tolist() == [18, 18] and cells.resolvable.all()


def test_decided_claims_open_nothing():
    pairs = pair_rows([-0.10, -0.08, -0.05], half_width=0.02)
    claim = beats()
    assert judged([claim], pairs).status.item() == "pass"
    assert open_cells([claim], judged([claim], pairs), pairs, 5, 100).empty


def test_the_plan_funds_the_cheapest_resolvable_claims_within_the_budget():
    cheap, dear = pair_rows([-0.10, -0.015], 0.02, baseline="FM"), pair_rows([-0.10, -0.012], 0.02, baseline="GUPT")
    hopeless = pair_rows([-0.10, -0.001], 0.02, baseline="PrivateERM")
    pairs = pd.concat([cheap, dear, hopeless], ignore_index=True)
    claims = [beats("FM"), beats("GUPT"), beats("PrivateERM")]
    cells = open_cells(claims, judged(claims, pairs), pairs, folds=5, max_repetitions=100)
    # FM: 50·(0.02/0.015)² = 88.9 → 89 runs → 18 repetitions; GUPT: 138.9 → 139 runs → 28; PrivateERM: hopeless
    needs = cells.groupby("claim").repetitions.max().to_dict()
    assert needs == {
        "beats_FM_max_difference": 18,
        "beats_GUPT_max_difference": 28,
        "beats_PrivateERM_max_difference": 100,
    }
    funded = plan(cells, first_stage=10, budget=2 * (18 - 10), costs=UNIT)
    assert set(funded.claims) == {"beats_FM_max_difference"} and funded.repetitions.tolist() == [18, 18]
    funded = plan(cells, first_stage=10, budget=1000, costs=UNIT)
    served = {claim for claims in funded.claims for claim in claims.split(";")}
    assert served == {"beats_FM_max_difference", "beats_GUPT_max_difference"}  # never the hopeless one
    assert funded.set_index("method").repetitions.to_dict() == {"PrivGene": 28, "FM": 18, "GUPT": 28}
    assert plan(cells, first_stage=10, budget=0, costs=UNIT).empty


def test_noprivacy_is_one_cell_per_panel_at_the_most_any_epsilon_needs():
    pairs = pair_rows([-0.015, -0.012], 0.02, baseline="NoPrivacy")
    claim = beats("NoPrivacy")
    cells = open_cells([claim], judged([claim], pairs), pairs, folds=5, max_repetitions=100)
    funded = plan(cells, first_stage=10, budget=1000, costs=UNIT)
    noprivacy = funded[funded.method == "NoPrivacy"]
    assert len(noprivacy) == 1 and np.isnan(noprivacy.epsilon.item()) and noprivacy.repetitions.item() == 28


def test_the_plan_costs_each_method_at_its_cpu_seconds():
    pairs = pd.concat(
        [pair_rows([-0.10, -0.015], 0.02, baseline="FM"), pair_rows([-0.10, -0.015], 0.02, baseline="GUPT")]
    )
    claims = [beats("FM"), beats("GUPT")]
    cells = open_cells(claims, judged(claims, pairs), pairs, folds=5, max_repetitions=100)
    costs = {**UNIT, "GUPT": 12.0}  # 8 more repetitions each: FM's claim 8·2 = 16 s, GUPT's 8·1 + 8·12 = 104 s
    assert set(plan(cells, first_stage=10, budget=60, costs=costs).claims) == {"beats_FM_max_difference"}
    served = {c for cs in plan(cells, first_stage=10, budget=112, costs=costs).claims for c in cs.split(";")}
    assert served == {"beats_FM_max_difference", "beats_GUPT_max_difference"}  # the shared PrivGene cell is paid once
