"""The four claim registries (``workflow/claims/<paper>.yaml``), one parametrised test per property:
each loads and belongs to its paper, judges only tables its paper's rules publish, and, judged on
the committed quick-profile references, gives the statuses recorded in the reference scorecard."""

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dpreplication.pipeline.snakefile import load_workflow
from dpreplication.scorecard import evaluate_claims, load_registry
from dpreplication.scorecard.evaluation import selected_row

REPO = Path(__file__).resolve().parents[1]
CLAIMS = REPO / "workflow" / "claims"
REFERENCES = REPO / "tests" / "references" / "quick"
MINIMUM_CLAIMS = {"permute_and_flip": 30, "truncated_laplace": 100, "darrm": 20, "privgene": 130}
"""Floors well below today's counts: a registry that silently lost most of its claims fails."""


def published_tables() -> dict[str, set[str]]:
    """``{paper: CSV stems its rules write under figures/<paper>/}``, from the parsed workflow."""
    tables: dict[str, set[str]] = {}
    for rule in load_workflow(REPO / "Snakefile").rules:
        for path in map(Path, rule.output):
            if path.suffix == ".csv" and len(path.parts) == 3 and path.parts[0] == "figures":
                tables.setdefault(path.parts[1], set()).add(path.stem)
    return tables


PUBLISHED = published_tables()


def test_every_paper_has_a_registry():
    assert sorted(path.stem for path in CLAIMS.glob("*.yaml")) == sorted(MINIMUM_CLAIMS)


@pytest.mark.parametrize("paper", sorted(MINIMUM_CLAIMS))
def test_registry_loads_with_its_papers_claims(paper):
    claims = load_registry(CLAIMS / f"{paper}.yaml")
    assert len(claims) >= MINIMUM_CLAIMS[paper]
    assert {claim.paper for claim in claims} == {paper}
    assert len({claim.id for claim in claims}) == len(claims), "claim ids repeat"


@pytest.mark.parametrize("paper", sorted(MINIMUM_CLAIMS))
def test_registry_judges_only_tables_its_rules_publish(paper):
    claims = load_registry(CLAIMS / f"{paper}.yaml")
    unknown = {claim.id: claim.table for claim in claims if claim.table not in PUBLISHED[paper]}
    assert not unknown, f"claims on tables no {paper} rule writes: {unknown}"


@pytest.mark.parametrize("paper", sorted(MINIMUM_CLAIMS))
def test_reference_tables_give_the_reference_scorecard(paper):
    """Judging the registry on the committed quick references reproduces the statuses recorded there
    (the statuses cannot drift apart from the tables they are computed from)."""
    directory = REFERENCES / paper
    tables = {path.stem: pd.read_csv(path) for path in directory.glob("*.csv") if path.stem != "scorecard"}
    scorecard = evaluate_claims(load_registry(CLAIMS / f"{paper}.yaml"), tables).set_index("id")
    recorded = pd.read_csv(directory / "scorecard.csv", keep_default_na=False).set_index("id")
    assert scorecard.status.to_dict() == recorded.status.to_dict()


def test_a_claim_on_an_unpublished_table_is_caught():
    """Negative control: the published-table map is not vacuous, and an unknown table is not in it."""
    assert {"tv_convergence", "ratio_table", "f2_gamma_shapes", "fig2_choice_of_c"} <= set().union(*PUBLISHED.values())
    assert "no_such_table" not in PUBLISHED["darrm"]


UNJUDGED_ROWS = {
    # DaRRM's verified table holds exactly the registry's cases (the rule computes one row per claim).
    "darrm": {},
    "privgene": {
        "EEM max privacy loss / eps": 4,  # the audits the spec does not name
        "EEM max privacy loss / eps (negative control: Delta/4)": 7,
        "P(first selection is a random initial vector)": 8,
        "r (EEM, m'=1) of our copy at eps=1": 4,
        "Example 1 tight Delta*": 1,
    },
}
"""Rows of a verified table that no claim judges, per quantity: our own measurements, and spec
entries that are the same fact as a judged row."""


@pytest.mark.parametrize("paper", sorted(UNJUDGED_ROWS))
def test_every_spec_number_of_the_verified_tables_is_a_claim(paper):
    """The verified tables hold recomputed values only: each spec number is a claim of the registry
    (its value, comparison and tolerance live there), every row is judged by at most one claim, and
    the unjudged rows are exactly our own measurements and the spec's repeats of a judged fact."""
    table = pd.read_csv(REPO / "figures" / paper / "verified_numbers.csv")
    assert not {"spec_value", "comparison", "tolerance"} & set(table.columns)
    judged = pd.Series(0, index=table.index)
    for claim in load_registry(CLAIMS / f"{paper}.yaml"):
        if claim.table == "verified_numbers":
            judged[selected_row(claim, {"verified_numbers": table}).name] += 1
    assert judged.max() == 1, f"rows judged twice:\n{table[judged > 1].to_string()}"
    assert table[judged == 0].quantity.value_counts().to_dict() == UNJUDGED_ROWS[paper]


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), "inf", "-Infinity", "nan"])
@pytest.mark.parametrize("number", ["expected", "tolerance"])
def test_a_non_finite_expected_value_or_tolerance_is_refused_naming_the_claim(number, value, tmp_path):
    """A registry entry whose expected value or tolerance is ±inf or NaN (as a YAML float or a string)
    never reaches the judge: loading the registry names the claim."""
    entry = {"id": "ok", "section": "s", "claim": "x", "expected": 1.0, "kind": "paper"}
    entry |= {"from": {"table": "t", "column": "value"}, "tolerance": 0.1}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"paper": "p", "claims": [entry, {**entry, "id": "bad", number: value}]}))
    with pytest.raises(ValueError, match=f"claim bad: {number} must be (a )?finite"):
        load_registry(path)


ENTRY = {"id": "ok", "section": "s", "claim": "x", "expected": 0.5, "kind": "paper", "comparison": "le"}
ENTRY |= {"from": {"table": "t", "column": "value"}, "tolerance": 0.1}


def registry_text(*entries, **document) -> str:
    """A registry of ``entries`` (the first one ``ENTRY``), with ``document``'s keys beside ``paper`` and ``claims``."""
    return yaml.dump({"paper": "p", "claims": [ENTRY, *entries], **document}, Dumper=NoAliases, sort_keys=False)


class NoAliases(yaml.SafeDumper):
    """Write a value shared by two entries twice, not as an anchor and an alias."""

    def ignore_aliases(self, data):
        return True


@pytest.mark.parametrize(
    "numbers, key",
    [
        ("expected: 0.5, tolerance: yes", "tolerance"),
        ("expected: 0.5, tolerance: on", "tolerance"),
        ("expected: true, tolerance: 0.1", "expected"),
        ("tolerance: 0.1, cases: [{K: 3, expected: no}]", "expected"),
    ],
)
def test_a_yaml_boolean_where_a_number_is_expected_is_refused_naming_the_claim(numbers, key, tmp_path):
    """``tolerance: yes`` used to read as 1.0, so that a value of 1.4 passed "≤ 0.5"."""
    path = tmp_path / "p.yaml"
    path.write_text(
        registry_text()
        + f"- {{id: bad, section: s, claim: x, kind: paper, comparison: le, from: {{table: t, column: v}}, {numbers}}}\n"
    )
    with pytest.raises(ValueError, match=rf"^claim bad: {key} must be a number, got (True|False) \(YAML reads yes"):
        load_registry(path)


@pytest.mark.parametrize(
    "entry, message",
    [
        (ENTRY | {"id": "bad", "tolerence": 0.1}, "claim bad: unknown key 'tolerence' (known: alternative_of, cases, claim, "),
        (ENTRY | {"id": "bad", "from": {"table": "t", "column": "v", "reduse": "max"}}, "claim bad: from: unknown key 'reduse'"),
        (ENTRY | {"id": "bad", "from": "t.value"}, "claim bad: from must be a mapping, got 't.value'"),
        ("a claim", "a claim must be a mapping, got 'a claim'"),
    ],
)  # fmt: skip
def test_an_unknown_key_is_refused_naming_the_claim_and_the_key(entry, message, tmp_path):
    """A misspelt key used to be dropped (``from``, the document) or to raise a ``TypeError`` that
    named no claim (an entry)."""
    path = tmp_path / "p.yaml"
    path.write_text(registry_text(entry))
    with pytest.raises(ValueError, match=re.escape(message)):
        load_registry(path)
    path.write_text(registry_text(draw={"t": "interval"}))
    with pytest.raises(
        ValueError, match=re.escape(f"{path}: unknown key 'draw' (known: claims, draws, margins, paper)")
    ):
        load_registry(path)


def test_a_registry_alias_bomb_or_one_over_1_mb_is_refused_before_it_is_built(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    anchors = "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 7))
    bomb.write_text("a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + anchors + registry_text())
    with pytest.raises(ValueError, match=re.escape(f"{bomb}: its YAML aliases expand it to 12,345,")):
        load_registry(bomb)
    large = tmp_path / "large.yaml"
    large.write_text(registry_text() + "# padding\n" * 100_000)
    with pytest.raises(ValueError, match=re.escape(f"{large}: 1,000,")):
        load_registry(large)


@pytest.mark.parametrize("paper", sorted(MINIMUM_CLAIMS))
def test_every_published_ledger_has_its_claim_at_float_tolerance(paper):
    """Each ``<name>.ledger.csv`` the paper's rules publish is judged by one claim: its worst
    ``ledger_error``, ``abs`` within 1e-9 (a looser tolerance would let a wrong split pass)."""
    ledgers = {stem for stem in PUBLISHED.get(paper, set()) if stem.endswith(".ledger")}
    claims = [claim for claim in load_registry(CLAIMS / f"{paper}.yaml") if claim.table.endswith(".ledger")]
    assert sorted(claim.table for claim in claims) == sorted(ledgers)
    for claim in claims:
        assert (claim.column, claim.reduce, claim.comparison, claim.expected) == ("ledger_error", "max", "abs", 0)
        assert claim.tolerance <= 1e-9 and claim.select == {}, claim.id


def test_one_lp_floor_decides_both_equal_and_differs():
    """Issue #52: the m = 1 equality claims failed on HiGHS's noise (1.6e-10–1.7e-9 against 1e-10), and the
    same threshold let a "differs" claim pass on noise. One floor, 1e-6 (spec §6 check 6), decides both."""
    claims = load_registry(CLAIMS / "darrm.yaml")
    equal = [c for c in claims if c.id.startswith("m1_opt_is_sub_")]
    differs = [c for c in claims if c.id.startswith("m1_opt_differs_at_eps2_")]
    assert len(equal) == 16 and len(differs) == 8
    floors = {c.tolerance for c in equal + differs}
    assert floors == {1e-6}
    floor = floors.pop()
    solver_noise = 1.7e-9  # the largest |γ_opt − γ_Sub| the m = 1 LPs reach where they must be equal
    for claim in equal:
        assert claim.holds(solver_noise) and claim.holds(floor * 0.99) and not claim.holds(floor * 1.01)
    for claim in differs:
        assert not claim.holds(solver_noise) and not claim.holds(floor) and claim.holds(floor * 1.01)


def test_a_criterion_fails_on_the_alternative_that_matters():
    """Issue #52 item 4: a criterion that accepts the baseline's own value, or a classifier far from random, cannot fail."""
    claims = {c.id: c for c in load_registry(CLAIMS / "darrm.yaml") + load_registry(CLAIMS / "privgene.yaml")}
    numbers = pd.read_csv(REPO / "figures" / "darrm" / "verified_numbers.csv")
    for m in (40, 60, 80):
        rr = numbers[
            (numbers.quantity == "E[RR] under T_U") & (numbers.setting == "LP K=101 eps=0.1 Delta=0") & (numbers.m == m)
        ]
        assert not claims[f"e_opt_k101_m{m}"].holds(rr.value.item()), m  # the RR baseline is not "0.0000"
        assert claims[f"e_opt_k101_m{m}"].holds(0.0)
    for claim_id in ("fig4_us_gupt_near_random", "fig4_br_privatesvm_near_random"):
        assert not claims[claim_id].holds(0.41) and claims[claim_id].holds(0.48)
