"""Decisive verdicts: values from random draws are judged on their 95 % intervals, every criterion
can fail, and no fact is judged twice (issue #32)."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from dpreplication.scorecard import Claim, evaluate_claims, load_registry, registry_margins
from dpreplication.scorecard.claims import COMPARISONS
from dpreplication.scorecard.evaluation import duplicate_judgements
from dpreplication.scorecard.pages import multiplicity_table, paper_page
from dpreplication.scorecard.uncertainty import (
    Z95,
    adjusted_decisive,
    confidence,
    interval_verdict,
    one_sided_level,
    p_decisive,
    runs_to_decide,
    runs_to_resolve,
)

REPO = Path(__file__).resolve().parents[1]
CLAIMS = REPO / "workflow" / "claims"
REFERENCES = REPO / "tests" / "references" / "quick"
PAPERS = sorted(path.stem for path in CLAIMS.glob("*.yaml"))


def interval_claim(**overrides):
    base = dict(id="c", paper="p", section="s", claim="x", expected=0.0, table="t", column="gap", kind="paper")
    return Claim(**{**base, "draws": "interval", **overrides})


def table(value, low, high, runs=50):
    return {"t": pd.DataFrame({"gap": [value], "gap_ci_low": [low], "gap_ci_high": [high], "runs": [runs]})}


@pytest.mark.parametrize(
    "comparison, tolerance, interval, status",
    [
        ("lt", 0.0, (-0.03, -0.05, -0.01), "pass"),
        ("lt", 0.0, (0.002, -0.025, 0.029), "inconclusive"),  # the fig3_banking_privateerm_beats_fm
        ("lt", 0.0, (0.03, 0.01, 0.05), "fail"),
        ("lt", 0.0, (-0.01, -0.03, 0.0), "inconclusive"),  # an interval touching a strict bound
        ("le", 0.03, (0.0297, 0.020, 0.0399), "inconclusive"),  # the knife edge: 0.0297 vs ≤ 0.03
        ("le", 0.03, (0.01, 0.0, 0.02), "pass"),
        ("ge", 0.1, (-0.2, -0.25, -0.15), "fail"),
        ("gt", 0.0, (0.02, 0.01, 0.03), "pass"),
        ("abs", 0.01, (0.0, -0.005, 0.005), "pass"),
        ("abs", 0.01, (0.012, 0.005, 0.02), "inconclusive"),
        ("abs", 0.01, (0.03, 0.02, 0.04), "fail"),
        ("range", 0.01, (0.005, 0.001, 0.009), "pass"),
        ("range", 0.01, (0.005, -0.001, 0.009), "inconclusive"),
    ],
)
def test_an_interval_claim_is_judged_on_its_interval_not_its_point(comparison, tolerance, interval, status):
    claim = interval_claim(comparison=comparison, tolerance=tolerance)
    row = evaluate_claims([claim], table(*interval)).iloc[0]
    assert row.status == status
    assert (row.ci_low, row.ci_high, row.runs) == (interval[1], interval[2], 50)


def seeds_claim(**overrides):
    base = dict(id="c", paper="p", section="s", claim="x", expected=0.93, table="t", column="acc", kind="paper")
    return Claim(**{**base, "draws": "seeds", "tolerance": 0.0126, **overrides})


@pytest.mark.parametrize(
    "value, sd, seeds, status",
    [
        (0.95, 0.0, 3, "fail"),  # no spread: the paper's 2 SE alone, 0.0126
        (0.95, 0.01, 3, "pass"),  # √(0.0126² + 4·0.01²·4/3) = 0.0265
        (0.97, 0.01, 3, "fail"),
        (0.90, 0.02, 5, "pass"),  # √(0.0126² + 4·0.02²·1.2) = 0.0462
        (0.87, 0.02, 5, "fail"),
    ],
)
def test_a_seeds_claim_widens_its_tolerance_by_the_seed_spread(value, sd, seeds, status):
    frame = {"t": pd.DataFrame({"acc": [value], "acc_seed_sd": [sd], "seeds": [seeds]})}
    row = evaluate_claims([seeds_claim()], frame).iloc[0]
    assert row.status == status and (row.runs, row.se) == (seeds, sd)
    assert row.tolerance == pytest.approx(math.sqrt(0.0126**2 + 4 * sd**2 * (1 + 1 / seeds)))


def test_a_seeds_claim_without_a_spread_is_missing_and_needs_abs():
    frame = {"t": pd.DataFrame({"acc": [0.93], "acc_seed_sd": [np.nan], "seeds": [1]})}
    row = evaluate_claims([seeds_claim()], frame).iloc[0]
    assert row.status == "missing" and "2 seeds" in row.reason
    with pytest.raises(KeyError, match="declared seeds"):
        evaluate_claims([seeds_claim()], {"t": pd.DataFrame({"acc": [0.93]})})
    with pytest.raises(ValueError, match="widens an abs tolerance"):
        seeds_claim(comparison="le")


def test_an_inconclusive_claim_states_the_runs_that_would_resolve_it():
    """Half-width 0.027 at 50 runs, 0.002 from the bound: 50·(0.027/0.002)² ≈ 9,113 runs."""
    row = evaluate_claims([interval_claim(comparison="lt")], table(0.002, -0.025, 0.029)).iloc[0]
    assert row.runs_to_resolve == math.ceil(50 * (0.027 / 0.002) ** 2)
    assert "9113 runs" in row.reason
    assert runs_to_resolve(-math.inf, 0.0, 0.0, -0.01, 0.01, 50) == math.inf
    assert runs_to_resolve(-math.inf, 0.0, -0.03, -0.05, -0.01, 50) == 50


def test_p_decisive_is_below_the_one_sided_level_exactly_when_the_interval_decides():
    rng = np.random.default_rng(0)
    for value, half in zip(rng.normal(0, 0.02, 200), rng.uniform(0.001, 0.03, 200)):
        claim = interval_claim(comparison="lt")
        row = evaluate_claims([claim], table(value, value - half, value + half)).iloc[0]
        assert (row.p_decisive < 0.025) == (row.status != "inconclusive")
    assert p_decisive(-math.inf, 0.0, -0.02, -0.04, 0.0) == pytest.approx(norm.sf(1.959963984540054))


def test_holm_and_benjamini_hochberg_adjustments():
    p = np.array([0.001, 0.01, 0.02, 0.3])
    assert adjusted_decisive(p, "holm").tolist() == [True, False, False, False]  # 0.01 > 0.025/3: Holm stops
    assert adjusted_decisive(p, "bh").tolist() == [True, True, False, False]  # 0.01 ≤ 0.025·2/4, 0.02 > 0.025·3/4
    assert adjusted_decisive(np.array([0.001, 0.002, 0.003]), "holm").all()
    with pytest.raises(ValueError):
        adjusted_decisive(p, "bonferroni")
    scorecard = evaluate_claims(
        [interval_claim(id=f"c{i}", comparison="lt", select={"i": i}) for i in range(3)],
        {
            "t": pd.DataFrame(
                {
                    "i": [0, 1, 2],
                    "gap": [-0.05, -0.021, -0.021],
                    "gap_ci_low": [-0.06, -0.04, -0.04],
                    "gap_ci_high": [-0.04, -0.001, -0.001],
                    "runs": 50,
                }
            )
        },
    )
    # p ≈ (0, 0.0198, 0.0198): Holm stops at 0.0198 > 0.025/2; BH keeps all three (0.0198 ≤ 0.025)
    assert "| p | 3 | 3 | 2 | 0 |" in multiplicity_table(scorecard)


def test_a_declared_interval_table_without_interval_columns_is_an_error():
    with pytest.raises(KeyError, match="declared interval"):
        evaluate_claims([interval_claim()], {"t": pd.DataFrame({"gap": [0.1]})})


def test_an_interval_that_is_not_finite_is_missing():
    row = evaluate_claims([interval_claim()], table(-0.1, np.nan, np.nan, runs=1)).iloc[0]
    assert row.status == "missing" and "confidence interval" in row.reason


def test_exact_claims_say_so_and_carry_no_interval():
    row = evaluate_claims([interval_claim(draws="exact", comparison="lt")], table(-0.1, 0.5, 0.6)).iloc[0]
    assert row.status == "pass" and row.draws == "exact" and math.isnan(row.ci_low)


PLANTED = {
    "abs": (1.0, 0.1, 1.2),
    "rel": (1.0, 0.1, 1.2),
    "le": (1.0, 0.1, 1.2),
    "ge": (1.0, 0.1, 0.8),
    "range": (1.0, 0.1, 0.9),
    "lt": (0.0, 1e-9, 0.0),
    "gt": (0.0, 1e-9, 4.5e-17),  # E_opt at m = 6: a floating-point floor is not a positive value
}
"""Per comparison: (expected, tolerance, a value that must fail)."""


def test_every_comparison_type_fails_on_a_planted_value():
    assert set(PLANTED) == set(COMPARISONS)
    for comparison, (expected, tolerance, value) in PLANTED.items():
        claim = interval_claim(draws="exact", comparison=comparison, expected=expected, tolerance=tolerance)
        assert not claim.holds(value), comparison
        row = evaluate_claims([claim.__class__(**{**claim.__dict__, "draws": "interval"})], table(value, value, value))
        assert row.status.iloc[0] == "fail", comparison


def test_a_tolerance_that_contains_zero_is_refused():
    with pytest.raises(ValueError, match="contains zero"):
        interval_claim(comparison="abs", expected=0.001, tolerance=0.002)
    interval_claim(comparison="rel", expected=0.001, tolerance=2.0)


def test_the_duplicate_check_finds_two_claims_on_one_cell():
    frame = {"t": pd.DataFrame({"i": [0, 1], "gap": [0.1, 0.2]})}
    claims = [interval_claim(id=n, draws="exact", select={"i": i}) for n, i in (("a", 0), ("b", 1), ("c", 0))]
    assert duplicate_judgements(claims, frame) == [("a", "c")]


def test_a_declared_second_reading_may_judge_the_first_readings_cell_and_nothing_else_may():
    frame = {"t": pd.DataFrame({"i": [0], "gap": [0.1]})}
    first = interval_claim(id="a", draws="exact", select={"i": 0}, comparison="abs", tolerance=0.5)
    second = interval_claim(id="b", draws="exact", select={"i": 0}, comparison="ge", tolerance=0.5, alternative_of="a")
    third = interval_claim(id="c", draws="exact", select={"i": 0}, comparison="le", tolerance=0.5)
    assert duplicate_judgements([first, second], frame) == []
    assert duplicate_judgements([first, third], frame) == [("a", "c")]
    assert duplicate_judgements([first, second, third], frame) == [("a", "b", "c")]


SECOND_READING = """
paper: p
claims:
  - id: a
    section: s
    claim: x
    quote: "The sentence."
    expected: 2
    comparison: abs
    tolerance: 0.5
    kind: paper
    from: {table: t, column: c}
  - id: b
    section: s
    claim: x
    quote: "The sentence."
    expected: 2
    comparison: ge
    tolerance: 0.5
    kind: paper
    alternative_of: a
    from: {table: t, column: c}
"""


@pytest.mark.parametrize(
    "edit, message",
    [
        (("alternative_of: a", "alternative_of: z"), "names no other claim"),
        (("alternative_of: a", "alternative_of: b"), "names no other claim"),
        (
            (
                'quote: "The sentence."\n    expected: 2\n    comparison: ge',
                'quote: "Another."\n    expected: 2\n    comparison: ge',
            ),
            "quotes the first reading's sentence",
        ),
        (("comparison: ge", "comparison: abs"), "the same criterion"),
    ],
)
def test_a_second_reading_is_refused_unless_it_reads_the_same_sentence_another_way(edit, message, tmp_path):
    registry = tmp_path / "p.yaml"
    registry.write_text(SECOND_READING)
    assert [c.alternative_of for c in load_registry(registry)] == ["", "a"]
    registry.write_text(SECOND_READING.replace(*edit))
    with pytest.raises(ValueError, match=message):
        load_registry(registry)


def test_a_second_reading_of_a_second_reading_is_refused(tmp_path):
    registry = tmp_path / "p.yaml"
    third = (
        SECOND_READING.split("  - id: b")[1]
        .replace("comparison: ge", "comparison: le")
        .replace("alternative_of: a", "alternative_of: b")
    )
    registry.write_text(SECOND_READING + "  - id: c" + third)
    with pytest.raises(ValueError, match="is itself a second reading"):
        load_registry(registry)


def test_every_second_reading_in_the_registries_names_a_first_reading_of_its_paper():
    seconds = {
        c.id: c.alternative_of for paper in PAPERS for c in load_registry(CLAIMS / f"{paper}.yaml") if c.alternative_of
    }
    assert len(seconds) == 16 and all(
        first in {c.id for c in load_registry(CLAIMS / "privgene.yaml")} for first in seconds.values()
    )


def reference_tables(paper):
    directory = REFERENCES / paper
    return {path.stem: pd.read_csv(path) for path in directory.glob("*.csv") if path.stem != "scorecard"}


@pytest.mark.parametrize("paper", PAPERS)
def test_no_two_claims_judge_the_same_cell(paper):
    assert duplicate_judgements(load_registry(CLAIMS / f"{paper}.yaml"), reference_tables(paper)) == []


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_claim_quotes_its_sentence_and_states_its_reading(paper):
    unread = [
        c.id for c in load_registry(CLAIMS / f"{paper}.yaml") if c.kind == "paper" and not (c.quote and c.reading)
    ]
    assert unread == []


def test_the_page_shows_the_interval_the_rule_and_the_reading():
    claim = interval_claim(comparison="lt", quote="PrivGene is better.", reading="one-sided, every ε")
    page = paper_page(evaluate_claims([claim], table(0.002, -0.025, 0.029)), "p")
    assert "[-0.025, 0.029], 50 runs" in page and "inconclusive" in page
    assert "| `c` | PrivGene is better. | one-sided, every ε | inconclusive |" in page
    assert "judged on its confidence interval" in page


@pytest.mark.parametrize("paper", PAPERS)
def test_a_value_with_an_interval_is_judged_on_it(paper):
    """A claimed column whose table carries ``<column>_ci_low`` is an ``interval`` claim (not exact)."""
    tables = reference_tables(paper)
    undeclared = [
        c.id
        for c in load_registry(CLAIMS / f"{paper}.yaml")
        if c.table in tables and f"{c.column}_ci_low" in tables[c.table] and c.draws != "interval"
    ]
    assert undeclared == []


FROM_DRAWS = {
    "privgene": [
        "comparison_pairs",
        "comparison_summary",
        "comparison_levels",
        "reference_levels",
        "fig2_summary",
        "eem_vs_em_summary",
        "fig5_gupt_variants",
        "small_epsilon_paper_r",
        "schedule_ablation",
    ],
    "darrm": [
        "prediction_teacher_seeds.opt_minus_gnmax",
        "prediction_teacher_seeds.sub_minus_gnmax",
        "prediction_teacher_seeds.opt_minus_sub",
        "prediction_accuracy_best_config.sub_minus_gnmax",
        "prediction_accuracy.gnmax_z",
        "prediction_accuracy.gnmax_mean",
    ],
    "permute_and_flip": ["lemma_chain.homogeneity_p", "lemma_internals.p_value"],
    "truncated_laplace": ["monte_carlo.z_score"],
}
"""Tables (or table.column) whose values come from random draws: their claims must not be ``exact``."""


@pytest.mark.parametrize("paper", PAPERS)
def test_values_from_random_draws_are_not_judged_as_exact(paper):
    claims = load_registry(CLAIMS / f"{paper}.yaml")
    judged = {name: [c for c in claims if name in (c.table, f"{c.table}.{c.column}")] for name in FROM_DRAWS[paper]}
    assert all(judged.values()), f"no claim reads {[n for n, c in judged.items() if not c]}"
    assert [c.id for cs in judged.values() for c in cs if c.draws == "exact"] == []


def test_an_interval_without_a_run_count_is_still_judged():
    frame = {"t": pd.DataFrame({"gap": [0.002], "gap_ci_low": [-0.025], "gap_ci_high": [0.029], "draws": [10]})}
    row = evaluate_claims([interval_claim(comparison="lt")], frame).iloc[0]
    assert row.status == "inconclusive" and row.runs == 10
    row = evaluate_claims([interval_claim(comparison="lt")], {"t": frame["t"].drop(columns="draws")}).iloc[0]
    assert row.status == "inconclusive" and math.isnan(row.runs) and math.isnan(row.runs_to_resolve)


def test_every_reference_interval_contains_its_value():
    """A swapped bound or a flipped sign in any table's interval arithmetic puts a value outside its own interval."""
    outside = []
    for path in sorted(REFERENCES.glob("*/*.csv")):
        table = pd.read_csv(path)
        for low in [c for c in table.columns if c.endswith("_ci_low")]:
            value, high = low.removesuffix("_ci_low"), low.replace("_ci_low", "_ci_high")
            if value not in table or high not in table:
                continue
            rows = table[[value, low, high]].dropna()
            bad = rows[(rows[low] > rows[value] + 1e-12) | (rows[value] > rows[high] + 1e-12)]
            outside += [f"{path.parent.name}/{path.stem}.{value}"] * len(bad)
    assert outside == []


def test_summary_intervals_are_bonferroni_over_their_cells_where_any_cell_could_decide():
    """Max over k = 2 cells: upper bound at α (the true maximum's cell), lower at α/2 (either cell may err)."""
    from scipy.stats import t

    from dpreplication.replications.privgene.comparison_figures import pair_summary

    pairs = pd.DataFrame(
        {
            "dataset": "A",
            "task": "lr",
            "method": "PrivGene",
            "baseline": "FM",
            "epsilon": [0.1, 1.0],
            "difference": [-0.05, 0.01],
            "difference_se": [0.01, 0.015],
            "difference_ci_low": [-0.07, -0.02],
            "difference_ci_high": [-0.03, 0.04],
            "ratio": [2.0, 1.5],
            "ratio_ci_low": [1.5, 1.2],
            "ratio_ci_high": [2.5, 1.8],
            "log10_ratio": np.log10([2.0, 1.5]),
            "log10_ratio_se": [0.05, 0.04],
            "runs": [50, 60],
            "looks": 1,
        }
    )
    means = pd.DataFrame(
        {
            "dataset": ["A"],
            "task": "lr",
            "method": "PrivGene",
            "baseline": "FM",
            "mean_difference": -0.02,
            "mean_difference_ci_low": -0.03,
            "mean_difference_ci_high": -0.01,
            "mean_difference_runs": 50,
        }
    )
    row = pair_summary(pairs, means).iloc[0]

    def q(alpha, runs):
        return t.isf(alpha, runs - 1)

    assert row.max_difference_ci_high == pytest.approx(0.01 + q(0.025, 60) * 0.015)
    assert row.max_difference_ci_low == pytest.approx(0.01 - q(0.0125, 60) * 0.015)
    assert row.max_difference_runs == 60  # the cell that sets the maximum
    assert row.min_difference_ci_low == pytest.approx(-0.05 - q(0.025, 50) * 0.01)
    assert row.min_difference_ci_high == pytest.approx(-0.05 + q(0.0125, 50) * 0.01)
    assert row.max_abs_difference_ci_high == pytest.approx(0.05 + q(0.0125, 50) * 0.01)
    assert row.difference_at_largest_epsilon_ci_low == -0.02  # one cell: its own interval
    growth_low = 10 ** (np.log10(2.0) - q(0.0125, 50) * 0.05 - np.log10(1.5) - q(0.0125, 60) * 0.04)
    assert row.ratio_growth_ci_low == pytest.approx(growth_low)
    assert (row.mean_difference, row.mean_difference_ci_low, row.mean_difference_runs) == (-0.02, -0.03, 50)
    assert row.runs == 50 and row.looks == 1


def test_a_mean_over_the_grid_is_the_mean_of_per_run_means():
    """Shared runs: the mean over ε has its own interval, narrower than the mean of the per-ε ones."""
    from dpreplication.learning.protocol import mean_confidence_interval
    from dpreplication.replications.privgene.comparison_figures import mean_differences, paired_differences

    rng = np.random.default_rng(3)
    run_effect = rng.normal(0, 0.03, 40)  # a fold that is hard for one method is hard at every ε
    rows = [
        {
            "dataset": "A",
            "task": "lr",
            "epsilon": eps,
            "repetition": r // 5,
            "fold": r % 5,
            "method": m,
            "error": 0.2 + (run_effect[r] if m == "PrivGene" else 0.0) + rng.normal(0, 0.01),
        }
        for eps in (0.1, 0.5, 1.0)
        for r in range(40)
        for m in ("PrivGene", "FM")
    ]
    runs = pd.DataFrame(rows)
    mean = mean_differences(runs).iloc[0]
    wide = runs.set_index(["epsilon", "repetition", "fold", "method"]).error.unstack("method")
    per_run = (wide.PrivGene - wide.FM).unstack("epsilon").mean(axis=1)
    expected = mean_confidence_interval(per_run.to_numpy())
    assert mean.mean_difference == pytest.approx(expected["mean"]) and mean.mean_difference_runs == 40
    assert mean.mean_difference_ci_low == pytest.approx(expected["ci_low"])
    pairs = paired_differences(runs)
    old_width = (pairs.difference_ci_high - pairs.difference_ci_low).mean()
    assert mean.mean_difference_ci_high - mean.mean_difference_ci_low <= old_width


def test_the_log_ratio_interval_is_the_delta_method():
    """With a constant method the log ratio's SE is the baseline's relative SE over ln 10."""
    from dpreplication.statistics.intervals import log_ratio_interval

    baseline = np.array([1.0, 2.0, 3.0, 4.0])
    se, half = log_ratio_interval(np.full(4, 5.0), baseline)
    assert se == pytest.approx(baseline.std(ddof=1) / 2 / baseline.mean() / np.log(10))
    from scipy.stats import t

    assert half == pytest.approx(t.ppf(0.975, 3) * se)
    se_swapped, _ = log_ratio_interval(baseline, np.full(4, 5.0))
    assert se_swapped == pytest.approx(se)


def test_the_papers_one_ensemble_rows_are_judged_with_our_seed_spread():
    """Issue #32 item 7: every recovered DaRRM row (a number the paper got from one ensemble of
    its own) is a ``seeds`` claim on the seed table's summary row, on both datasets."""
    recovered = [c for c in load_registry(CLAIMS / "darrm.yaml") if c.id.startswith("recovered_")]
    assert len(recovered) == 17 and {c.select["dataset"] for c in recovered} == {"mnist", "fashion_mnist"}
    for claim in recovered:
        assert (claim.draws, claim.table, claim.select["replicate"]) == ("seeds", "prediction_teacher_seeds", "all")


# ---------------------------------------------------------------- margins (issue #50)


@pytest.mark.parametrize(
    "comparison, tolerance, interval, status",
    [
        # "beats" (< 0) with margin 0.01: fail once the draws exclude an advantage of 0.01
        ("lt", 0.0, (0.002, -0.008, 0.012), "fail"),  # inconclusive without a margin
        ("lt", 0.0, (-0.002, -0.012, 0.008), "inconclusive"),  # an advantage of 0.01 is still possible
        ("lt", 0.0, (-0.004, -0.008, -0.001), "pass"),  # any advantage shown passes
        # "close to" within 0.03 with margin 0.01: fail once |gap| ≤ 0.02 is excluded
        ("abs", 0.03, (0.0297, 0.021, 0.0384), "fail"),
        ("abs", 0.03, (0.0297, 0.019, 0.0404), "inconclusive"),
        ("abs", 0.03, (0.015, 0.001, 0.029), "pass"),
        # a region narrower than twice the margin shrinks to its centre: a value there never fails
        ("abs", 0.005, (0.001, -0.003, 0.0071), "inconclusive"),
        ("abs", 0.005, (0.004, 0.0005, 0.0075), "fail"),
        ("ge", 0.1, (-0.095, -0.104, -0.0905), "fail"),  # ≥ −0.1 with the margin needs ≥ −0.09 possible
    ],
)
def test_a_margin_decides_what_the_interval_alone_cannot(comparison, tolerance, interval, status):
    claim = interval_claim(comparison=comparison, tolerance=tolerance, margin=0.01)
    row = evaluate_claims([claim], table(*interval)).iloc[0]
    assert row.status == status and row.margin == 0.01
    assert (row.p_decisive < 0.025) == (status != "inconclusive")


def test_an_interval_narrower_than_the_margin_always_decides():
    """Whatever the value, an interval narrower than the margin is pass or fail: finitely many runs decide."""
    rng = np.random.default_rng(1)
    for comparison, tolerance in (("lt", 0.0), ("le", 0.03), ("abs", 0.03), ("abs", 0.004), ("ge", 0.1)):
        claim = interval_claim(comparison=comparison, tolerance=tolerance, margin=0.01)
        effective = min(0.01, tolerance) if comparison == "abs" else 0.01  # a narrow region shrinks to its centre
        for value in rng.uniform(-0.15, 0.15, 300):
            half = rng.uniform(0, effective / 2 * 0.999)
            row = evaluate_claims([claim], table(value, value - half, value + half)).iloc[0]
            assert row.status in ("pass", "fail"), (comparison, value, half)
            assert row.runs_to_resolve == 50


def test_runs_to_resolve_never_exceeds_the_runs_that_narrow_the_interval_below_the_margin():
    """A tie on the bound: without a margin it never resolves; with 0.01 it resolves once the width is below it."""
    assert runs_to_resolve(-math.inf, 0.0, 0.0, -0.01, 0.01, 50) == math.inf
    # the fail bound −0.01 lies 0.01 below the point, the interval reaches 0.012 down: 50·1.2² runs
    assert runs_to_resolve(-math.inf, 0.0, 0.0, -0.012, 0.012, 50, margin=0.01) == math.ceil(50 * 1.2**2)
    assert runs_to_resolve(-math.inf, 0.0, 0.0, -0.012, 0.012, 50, margin=0.01) <= runs_to_decide(
        -0.012, 0.012, 50, 0.01
    )
    assert runs_to_decide(-0.01, 0.01, 50, 0.01) == 200 and runs_to_decide(-0.001, 0.001, 50, 0.01) == 50


def test_an_asymmetric_interval_is_read_on_the_side_that_decides():
    """fig3_us_majority_flat: the point at its interval's low end (range floored at 0) is not decisive."""
    p = p_decisive(-0.005, 0.005, 0.001, 0.001, 0.009)
    assert interval_verdict(-0.005, 0.005, False, 0.001, 0.009) == "inconclusive" and p >= 0.025
    assert p == pytest.approx(norm.sf(Z95 * 0.004 / 0.008))


def test_a_second_look_scales_the_p_value_by_the_looks():
    """At two looks each interval is at one-sided 0.0125, and p_decisive doubles: < 0.025 iff decisive."""
    z = norm.isf(0.0125)
    half = 0.01
    value = -half * 1.01  # just clears 0 at the two-look quantile
    p = p_decisive(-math.inf, 0.0, value, value - half, value + half, looks=2)
    assert p == pytest.approx(2 * norm.sf(z * 1.01)) and p < 0.025
    assert confidence(2) == pytest.approx(0.975) and one_sided_level(1) == 0.025
    with pytest.raises(ValueError, match="positive integer"):
        one_sided_level(0)


def write_registry(tmp_path, margins):
    text = (
        "paper: p\ndraws:\n  t: interval\n"
        + margins
        + "claims:\n  - {id: c, section: s, claim: x, expected: 0, comparison: lt, kind: spec, from: {table: t, column: gap}}\n"
    )
    path = tmp_path / "p.yaml"
    path.write_text(text)
    return path


def test_the_registry_reads_a_margin_with_its_source_and_refuses_one_without(tmp_path):
    path = write_registry(tmp_path, "margins:\n  t: {margin: 0.01, source: 'whole points'}\n")
    assert load_registry(path)[0].margin == 0.01
    assert registry_margins(path) == {"t": (0.01, "whole points")}
    for bad, message in (
        ("margins:\n  t: {margin: 0.01}\n", "its source"),
        ("margins:\n  t: {margin: -0.01, source: s}\n", "non-negative"),
        ("margins:\n  t: {margin: yes, source: s}\n", "boolean"),
        ("margins:\n  u: {margin: 0.01, source: s}\n", "not declared interval"),
        ("margins:\n  t: {margin: 0.01, source: s, per_claim: c}\n", "unknown key 'per_claim'"),
    ):
        with pytest.raises(ValueError, match=message):
            load_registry(write_registry(tmp_path, bad))


@pytest.mark.parametrize("paper", ["privgene"])
def test_every_quantity_from_random_draws_has_a_margin(paper):
    """PrivGene's verdicts are all decidable: no interval claim is left without its smallest effect of interest."""
    claims = load_registry(CLAIMS / f"{paper}.yaml")
    assert [c.id for c in claims if c.draws == "interval" and c.margin <= 0] == []
    page = paper_page(
        evaluate_claims([interval_claim(margin=0.01)], table(-0.02, -0.03, -0.01)),
        "p",
        None,
        registry_margins(CLAIMS / f"{paper}.yaml"),
    )
    assert "## Margins" in page and "1 point of misclassification rate" in page


def test_the_committed_scorecard_is_decisive_exactly_where_p_decisive_says_so():
    """The Holm/BH table counts decisive verdicts from the statuses; their p-values must agree with them."""
    scorecard = pd.read_csv(REPO / "figures" / "scorecard.csv")
    judged = scorecard[(scorecard.draws == "interval") & scorecard.status.isin(STATUSES_JUDGED)]
    disagree = judged[(judged.p_decisive < 0.025) != (judged.status != "inconclusive")]
    assert disagree.id.tolist() == []


STATUSES_JUDGED = ["pass", "fail", "deviation", "inconclusive"]
