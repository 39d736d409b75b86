"""Scorecard: claims are looked up in pipeline tables and judged; nothing is typed in."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dpreplication.replications.darrm.verified import Case
from dpreplication.scorecard import (
    KINDS,
    STATUSES,
    Claim,
    Deviation,
    claims_on,
    evaluate_claims,
    load_registry,
    paper_page,
    read_scorecard,
    summary_page,
    sync_readme,
)
from dpreplication.scorecard.claims import expand_cases
from dpreplication.scorecard.evaluation import lookup

REPO = Path(__file__).resolve().parents[1]
TABLES = {"t": pd.DataFrame({"vector": ["Q5", "Q5"], "epsilon": [1.0, 2.0], "value": [0.5, 0.25]})}


def make(**overrides):
    base = dict(
        id="c",
        paper="p",
        section="s",
        claim="x",
        expected=0.5,
        table="t",
        column="value",
        kind="paper",
        select={"vector": "Q5", "epsilon": 1},
    )
    return Claim(**{**base, **overrides})


def evidence_for(*ids, reason="cause shown: {ev:.2f} (own value {reproduced})"):
    return Deviation(reason=reason, evidence=ids)


def test_pass_and_fail():
    rows = evaluate_claims([make(), make(id="d", expected=0.6, tolerance=0.05)], TABLES)
    assert list(rows.status) == ["pass", "fail"]
    assert rows.reproduced.tolist() == [0.5, 0.5]


def test_a_failing_claim_stays_fail_whatever_its_stated_reason():
    """A deviation needs evidence that passes in the same run; a reason alone never changes fail."""
    failing_evidence = make(id="ev", expected=0.9)  # does not hold
    claims = [failing_evidence, make(id="d", expected=0.6, deviation=evidence_for("ev"))]
    rows = evaluate_claims(claims, TABLES).set_index("id")
    assert rows.loc["d", "status"] == "fail"
    assert rows.loc["d", "reason"] == "stated cause not shown: evidence ev is fail"


def test_a_deviation_has_passing_evidence_and_a_reason_filled_from_measured_values():
    claims = [make(id="ev", kind="diagnostic"), make(id="d", expected=0.6, deviation=evidence_for("ev"))]
    rows = evaluate_claims(claims, TABLES).set_index("id")
    assert rows.loc["d", "status"] == "deviation" and rows.loc["d", "evidence"] == "ev"
    assert rows.loc["d", "reason"] == "cause shown: 0.50 (own value 0.5)"


def test_a_slice_judges_only_the_claims_its_tables_reach():
    """A claim on a table the slice did not compute is left out, and so is a deviation whose evidence is
    on such a table or whose reason quotes one (judged without it, it would read as a fail, or fail to
    fill): never a verdict on what did not run."""
    claims = [
        make(id="here"),
        make(id="elsewhere", table="absent"),
        make(id="ev", table="absent"),
        make(id="d", expected=0.6, deviation=evidence_for("ev")),
        make(id="d2", expected=0.6, deviation=evidence_for("here", reason="shown: {here}")),
        make(id="d3", expected=0.6, deviation=evidence_for("here", reason="shown: {elsewhere}")),
    ]
    assert [c.id for c in claims_on(claims, TABLES)] == ["here", "d2"]
    assert list(evaluate_claims(claims_on(claims, TABLES), TABLES).status) == ["pass", "deviation"]


def test_a_passing_claim_with_a_deviation_is_a_pass():
    rows = evaluate_claims([make(id="ev"), make(id="d", deviation=evidence_for("ev"))], TABLES)
    assert list(rows.status) == ["pass", "pass"] and rows.reason.tolist() == ["", ""]


def test_nan_is_missing_never_pass_or_deviation():
    tables = {"t": TABLES["t"].assign(value=[np.nan, 0.25])}
    claims = [
        make(id="ev", select={"vector": "Q5", "epsilon": 2}, expected=0.25),
        make(id="nan_le", comparison="le", expected=1.0),
        make(id="nan_dev", expected=0.9, deviation=evidence_for("ev")),
    ]
    rows = evaluate_claims(claims, tables).set_index("id")
    assert rows.status.to_dict() == {"ev": "pass", "nan_le": "missing", "nan_dev": "missing"}
    assert rows.loc["nan_le", "reason"] == "not computed: t.value is empty or NaN"


NON_FINITE = {
    "+inf": (np.inf, "is inf, not a finite number"),
    "-inf": (-np.inf, "is -inf, not a finite number"),
    "nan": (np.nan, "is empty or NaN"),
}
"""A reproduced value that no comparison may judge, and the end of its ``missing`` reason."""


@pytest.mark.parametrize("value", sorted(NON_FINITE))
@pytest.mark.parametrize("comparison", ["abs", "rel", "le", "ge", "lt", "gt"])
def test_a_non_finite_reproduced_value_is_missing_for_every_comparison(comparison, value):
    """+inf would pass ≥/>, -inf ≤/<; no comparison may judge a value that is not a finite number."""
    reproduced, reason = NON_FINITE[value]
    claim = make(comparison=comparison, tolerance=0.01)
    assert claim.holds(reproduced) is False
    rows = evaluate_claims([claim], {"t": TABLES["t"].assign(value=[reproduced, 0.25])})
    assert rows.status.tolist() == ["missing"]
    assert rows.reason.tolist() == [f"not computed: t.value {reason}"]


def test_missing_evidence_makes_the_deviation_a_fail():
    tables = {"t": TABLES["t"].assign(value=[0.5, np.nan])}
    claims = [
        make(id="ev", select={"vector": "Q5", "epsilon": 2}),
        make(id="d", expected=0.6, deviation=evidence_for("ev")),
    ]
    rows = evaluate_claims(claims, tables).set_index("id")
    assert rows.loc["d", "status"] == "fail" and "ev is missing" in rows.loc["d", "reason"]


def test_kinds_and_deviations_are_validated(tmp_path):
    with pytest.raises(ValueError, match="kind must be one of"):
        make(kind="prose")
    with pytest.raises(ValueError, match="at least one evidence"):
        Deviation(reason="r", evidence=())
    entry = {
        "id": "d",
        "section": "s",
        "claim": "x",
        "expected": 1,
        "kind": "paper",
        "from": {"table": "t", "column": "value"},
    }
    for deviation, message in [
        ("a typed reason", "mapping with exactly"),
        ({"reason": "r", "evidence": ["nope"]}, "unknown evidence"),
        ({"reason": "{nope}", "evidence": ["d2"]}, "unknown value"),
    ]:
        path = tmp_path / "p.yaml"
        path.write_text(
            yaml.safe_dump({"paper": "p", "claims": [{**entry, "deviation": deviation}, {**entry, "id": "d2"}]})
        )
        with pytest.raises(ValueError, match=message):
            load_registry(path)


def test_rows_of_a_missing_dataset_are_missing_with_the_reason():
    tables = {"t": TABLES["t"].assign(data_status=["needs download: toy is not available (no mirror)", ""])}
    rows = evaluate_claims([make(), make(id="d", select={"vector": "Q5", "epsilon": 2}, expected=0.25)], tables)
    assert list(rows.status) == ["missing", "pass"]
    assert rows.reason.iloc[0].startswith("needs download: toy")


@pytest.mark.parametrize(
    "comparison, expected, holds",
    [("le", 0.5, True), ("lt", 0.5, False), ("ge", 0.6, False), ("gt", 0.4, True), ("rel", 0.51, False)],
)
def test_comparisons(comparison, expected, holds):
    assert make(comparison=comparison, expected=expected, tolerance=0.01).holds(0.5) is holds


def test_a_reduced_claim_judges_the_worst_row():
    """``reduce: max`` (a ledger's worst point): every selected row counts; an infinite worst case
    fails, a NaN one is missing; only exact values may be reduced."""
    ledger = {"t": pd.DataFrame({"figure": "f", "error": [0.0, 2e-16, 1e-10]})}
    claim = make(expected=0, tolerance=1e-9, column="error", select={"figure": "f"}, reduce="max", kind="sanity")
    assert lookup(claim, ledger) == 1e-10
    for worst, status in ((1e-10, "pass"), (0.5, "fail"), (np.inf, "fail"), (np.nan, "missing")):
        ledger["t"].loc[2, "error"] = worst
        assert evaluate_claims([claim], ledger).status.item() == status, worst
    with pytest.raises(ValueError, match="reduce must be 'max'"):
        make(reduce="mean")
    with pytest.raises(ValueError, match="reduced claim judges exact values"):
        make(reduce="max", draws="interval")


def test_lookup_requires_exactly_one_row():
    with pytest.raises(ValueError, match="selects 2 rows"):
        lookup(make(select={"vector": "Q5"}), TABLES)
    with pytest.raises(KeyError, match="no table"):
        lookup(make(table="missing"), TABLES)


TYPED_TABLE = {
    "t": pd.DataFrame(
        {
            "K": pd.array([11, 11, 101, 11, 11, 11], dtype="Int64"),
            "m": pd.array([1, 10, 1, 1, 2, None], dtype="Int64"),
            "eps": [0.1, 0.1, 0.1, 0.1, 0.1, None],
            "Delta": [0.0, 0.0, 0.0, 1e-5, 0.0, 0.0],
            "l": pd.array([None, None, None, None, 6, None], dtype="Int64"),
            "value": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
}


@pytest.mark.parametrize(
    "wanted, value",
    [
        ({"K": 11, "m": 1, "eps": 0.1, "Delta": 0}, 1.0),
        ({"Delta": 0.0, "eps": 0.1, "m": 1, "K": 11}, 1.0),  # order and 0 vs 0.0 do not matter
        ({"K": 11, "m": 10, "eps": 0.1}, 2.0),
        ({"K": 101, "m": 1}, 3.0),
        ({"K": 11, "m": 1, "eps": 0.1, "Delta": 1.0e-5}, 4.0),
        ({"K": 11, "l": 6}, 5.0),
        ({"K": 11, "Delta": 0.0, "eps": 0.1, "m": 2, "l": 6}, 5.0),
    ],
)
def test_claims_select_typed_columns_as_numbers(wanted, value):
    assert lookup(make(select=wanted), TYPED_TABLE) == value


@pytest.mark.parametrize(
    "wanted, rows",
    [({"K": 11, "m": 3}, 0), ({"K": 11, "eps": 0.01}, 0), ({"K": 11, "m": 1}, 2), ({"Delta": 0.0, "K": 11}, 4)],
)
def test_a_typed_selection_must_name_one_row(wanted, rows):
    """An empty cell matches no number; a selection naming too few columns finds several rows."""
    with pytest.raises(ValueError, match=f"selects {rows} rows"):
        lookup(make(select=wanted), TYPED_TABLE)


@pytest.mark.parametrize(
    "select, message",
    [
        ({"quantity": "q", "parameters": {"K": 11}}, "must be one value"),
        ({"Delta": "1e-05"}, "text to YAML 1.1"),  # an exponent without a dot: YAML 1.1 reads text
    ],
)
def test_the_registry_refuses_a_selection_that_is_not_one_typed_cell(tmp_path, select, message):
    registry = tmp_path / "r.yaml"
    entry = {"id": "c", "section": "s", "claim": "x", "expected": 1, "comparison": "abs", "tolerance": 0}
    entry |= {"kind": "spec", "from": {"table": "t", "select": select, "column": "value"}}
    registry.write_text(yaml.safe_dump({"paper": "p", "claims": [entry]}))
    with pytest.raises(ValueError, match=message):
        load_registry(registry)


def test_every_darrm_verified_selection_is_a_typed_case():
    """The registry's DaRRM verified claims read as the replication's cases (no free-text parameters)."""
    claims = [c for c in load_registry(REPO / "workflow" / "claims" / "darrm.yaml") if c.table == "verified_numbers"]
    cases = [Case.from_select(claim.select) for claim in claims]
    assert len(set(cases)) == len(claims), "two claims judge one verified row: one judgement per fact"
    with pytest.raises(ValueError, match="unknown columns"):
        Case.from_select({"quantity": "gamma_const", "parameters": "K=11"})


def test_committed_scorecard_statuses_mean_what_they_say():
    """Every deviation's evidence passes in the same scorecard; only fail and missing lack a pass."""
    path = REPO / "figures" / "scorecard.csv"
    scorecard = read_scorecard(path).set_index("id", drop=False)
    assert {"id", "kind", "status", "evidence"} <= set(scorecard.columns)
    assert set(scorecard.status) <= set(STATUSES) and set(scorecard.kind) <= set(KINDS)
    for _paper, claims in scorecard.groupby("paper"):
        for _, claim in claims[claims.status == "deviation"].iterrows():
            evidence = claim.evidence.split(";")
            assert claim.reason and evidence, claim.id
            assert (claims.set_index("id").loc[evidence, "status"] == "pass").all(), claim.id
    assert scorecard.loc[scorecard.status == "missing", "reason"].ne("").all()


def markdown_tables(text: str) -> list[list[list[str]]]:
    """The tables of a Markdown text as GitHub splits them: on every pipe not escaped by a backslash."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
        elif current:
            tables.append(current)
            current = []
    return tables


def assert_valid_tables(text: str):
    tables = markdown_tables(text)
    assert tables
    for rows in tables:
        header, rule, *body = rows
        assert all(set(c) <= set("-:") and c for c in rule), rule
        assert len(rule) == len(header) and all(len(r) == len(header) for r in body), (header, body[:3])


def test_pages_are_valid_github_tables_with_what_does_not_hold_first():
    tables = {"t": pd.DataFrame({"k": ["a", "b", "c"], "value": [0.5, 2.0, np.nan]})}
    claims = [
        make(id="ok", select={"k": "a"}),
        make(id="bad", select={"k": "b"}, claim="a | b, with pipes"),
        make(id="nan", select={"k": "c"}, kind="spec", comparison="rel", tolerance=0.1),
    ]
    scorecard = evaluate_claims(claims, tables)
    page = paper_page(scorecard, "p")
    assert_valid_tables(page)
    body = markdown_tables(page)[1][2:]
    assert [row[2] for row in body] == ["fail", "missing", "pass"]
    assert "a \\| b, with pipes" in page
    assert_valid_tables(summary_page(scorecard))


def test_a_paper_page_shows_what_each_private_figure_spent():
    """The "Privacy spent" table: per published ledger, its points, releases, stated ε, the mechanisms
    and the worst error; for a stated bound, the least share spent."""
    exact = pd.DataFrame({"stated_epsilon": [0.1, 0.2, float("inf")], "releases": [5, 5, 5], "failed_releases": 0,
                          "mechanisms": ["laplace_mechanism", "laplace_mechanism + select", "NoPrivacy"],
                          "ledger_error": [0.0, 1e-15, 0.0]})  # fmt: skip
    bound = exact.iloc[:2].assign(spent_share=[0.5, 0.9], mechanisms="sample_darrm")
    scorecard = evaluate_claims([make(id="x")], TABLES)
    page = paper_page(scorecard, "p", {"fig.ledger": exact, "query.ledger": bound})
    assert_valid_tables(page)
    spent = markdown_tables(page)[2]
    assert spent[2] == ["`fig.ledger.csv`", "3", "15", "0.1, 0.2, ∞", "`NoPrivacy`, `laplace_mechanism`, `select`",
                        "1e-15", "—"]  # fmt: skip
    assert spent[3][-2:] == ["1e-15", "0.5"]
    assert "## Privacy spent" not in paper_page(scorecard, "p")


def test_committed_scorecard_pages_are_valid_markdown():
    for path in [REPO / "figures" / "scorecard.md", *sorted((REPO / "figures").glob("*/scorecard.md"))]:
        assert_valid_tables(path.read_text())


def test_readme_status_table_is_the_committed_scorecard_summary(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text((REPO / "README.md").read_text())
    changed = sync_readme(readme, read_scorecard(REPO / "figures" / "scorecard.csv"))
    assert not changed, "README's status table is stale: run `make readme`"


def test_a_spec_table_entry_gives_one_claim_per_case():
    entry = {
        "id": "gamma",
        "claim": "γ(l), K=11",
        "from": {"table": "t", "select": {"quantity": "gamma"}, "column": "value"},
        "cases": [
            {"K": 11, "m": 1, "l": 6, "expected": 0.1},
            {"K": 11, "m": 3, "l": 7, "expected": 0.5},
        ],
    }
    first, second = expand_cases(entry)
    assert (first["id"], first["claim"], first["expected"]) == ("gamma_m1_l6", "γ(l), K=11 (m=1, l=6)", 0.1)
    assert second["from"]["select"] == {"quantity": "gamma", "K": 11, "m": 3, "l": 7}
    assert entry["from"]["select"] == {"quantity": "gamma"}  # the shared selection is not modified
    text_cases = [
        {"id": "adult", "parameters": "Adult eps=1", "expected": 49},
        {"parameters": "BR eps=1", "expected": 38},
    ]
    adult, br = expand_cases({**entry, "cases": text_cases})
    assert (adult["id"], adult["claim"]) == ("adult", "γ(l), K=11 (Adult eps=1)")
    assert br["id"] == "gamma_BR_eps_1"
    with pytest.raises(ValueError, match="every case needs its own expected value"):
        expand_cases({**entry, "cases": [{"K": 11}]})
