"""Scorecard: claims are looked up in pipeline tables and judged; nothing is typed in."""

from pathlib import Path

import pandas as pd
import pytest

from dpreplication.scorecard import Claim, evaluate_claims, load_registry, render_markdown
from dpreplication.scorecard.claims import lookup

REPO = Path(__file__).resolve().parents[1]
TABLES = {"t": pd.DataFrame({"vector": ["Q5", "Q5"], "epsilon": [1.0, 2.0], "value": [0.5, 0.25]})}


def make(**overrides):
    base = dict(id="c", paper="p", section="s", claim="x", expected=0.5, table="t", column="value",
                select={"vector": "Q5", "epsilon": 1})
    return Claim(**{**base, **overrides})


def test_pass_fail_and_deviation():
    rows = evaluate_claims([make(), make(id="d", expected=0.6, tolerance=0.05),
                            make(id="e", expected=0.6, deviation="known gap")], TABLES)
    assert list(rows.status) == ["pass", "fail", "deviation"]
    assert rows.reason.iloc[2] == "known gap"
    assert rows.reproduced.tolist() == [0.5, 0.5, 0.5]


@pytest.mark.parametrize("comparison, expected, holds", [("le", 0.5, True), ("lt", 0.5, False), ("ge", 0.6, False),
                                                         ("gt", 0.4, True), ("rel", 0.51, False)])
def test_comparisons(comparison, expected, holds):
    assert make(comparison=comparison, expected=expected, tolerance=0.01).holds(0.5) is holds


def test_rows_of_a_missing_dataset_need_a_download():
    tables = {"t": TABLES["t"].assign(data_status=["needs download: toy is not available (no mirror)", ""])}
    rows = evaluate_claims([make(), make(id="d", select={"vector": "Q5", "epsilon": 2}, expected=0.25)], tables)
    assert list(rows.status) == ["needs download", "pass"]
    assert rows.reason.iloc[0].startswith("needs download: toy")
    assert "needs download" in render_markdown(rows)


def test_lookup_requires_exactly_one_row():
    with pytest.raises(ValueError, match="selects 2 rows"):
        lookup(make(select={"vector": "Q5"}), TABLES)
    with pytest.raises(KeyError, match="no table"):
        lookup(make(table="missing"), TABLES)


def test_registries_are_well_formed():
    for path in sorted((REPO / "workflow" / "claims").glob("*.yaml")):
        claims = load_registry(path)
        assert claims, path
        assert all(c.paper == path.stem for c in claims)


def test_permute_and_flip_registry_has_at_least_30_claims():
    assert len(load_registry(REPO / "workflow" / "claims" / "permute_and_flip.yaml")) >= 30


def test_committed_scorecard_has_no_failures():
    path = REPO / "figures" / "scorecard.csv"
    if not path.is_file():
        pytest.skip("no committed scorecard yet")
    scorecard = pd.read_csv(path, keep_default_na=False)
    assert list(scorecard.columns[:6]) == ["paper", "claim", "expected", "reproduced", "tolerance", "status"]
    assert set(scorecard.status) <= {"pass", "deviation", "needs download"}, scorecard[scorecard.status == "fail"].to_string()
    assert (scorecard[scorecard.status.isin(["deviation", "needs download"])].reason != "").all()
