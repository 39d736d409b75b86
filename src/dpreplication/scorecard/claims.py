"""The claim registry: a paper's checkable claims, read from ``workflow/claims/<paper>.yaml`` and checked.

A claim names the paper's value, a tolerance and a comparison, and the table cell whose value is
the reproduction; :mod:`dpreplication.scorecard.evaluation` judges it against the pipeline's tables.

How a value was obtained is its ``draws``, declared per table (or ``table.column``) in the
registry's ``draws:`` section: ``exact`` (deterministic: the default), ``interval`` (from random draws; the row carries
``<column>_ci_low``/``<column>_ci_high``, optionally ``<column>_se``, ``<column>_runs`` or
``runs``, and ``looks`` (how many times a verdict on it may be read: its intervals are at one-sided
level 0.025 / looks), and the verdict is read from the interval), ``test`` (a test statistic, such as a
p-value or z-score, whose criterion is the test's acceptance region at its stated level) or
``seeds`` (a mean over ``S`` independently seeded replicates, e.g. teacher ensembles, of a number
the paper reports from one replicate of its own: the row carries ``<column>_seed_sd`` and
``seeds``, and the claim's ``abs`` tolerance τ, the paper's own allowance at two standard errors,
widens to :func:`~dpreplication.scorecard.evaluation.seed_tolerance` ``= √(τ² + 4s²(1 + 1/S))``:
two standard errors of the difference between the paper's replicate and our mean).

A claim's ``kind`` says what it is evidence of: ``paper`` (stated in the paper), ``spec`` (derived
in the replication spec), ``diagnostic`` (a measurement of this replication that explains a gap,
used as evidence) or ``sanity`` (a self-consistency or construction check that cannot speak for
or against the paper). Only paper and spec claims count as replication evidence.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from dpreplication.validation import yaml_file

KINDS = ("paper", "spec", "diagnostic", "sanity")
DRAWS = ("exact", "interval", "test", "seeds")
"""How a claimed value is obtained: deterministically, from draws with an interval, as a test
statistic, or as a mean over seeded replicates."""
REPLICATION_KINDS = ("paper", "spec")
"""The kinds that count as evidence for or against the papers."""


COMPARISONS = {
    "abs": "|reproduced − expected| ≤ tolerance",
    "rel": "|reproduced − expected| ≤ tolerance·|expected|",
    "le": "reproduced ≤ expected + tolerance",
    "ge": "reproduced ≥ expected − tolerance",
    "range": "expected ≤ reproduced ≤ expected + tolerance",
    "lt": "reproduced < expected − tolerance",
    "gt": "reproduced > expected + tolerance",
}
"""A strict comparison's tolerance is its noise floor: the margin a value must clear to count."""

PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)(?::([^{}]*))?\}")


@dataclass(frozen=True)
class Deviation:
    """Why a claim that does not hold differs from the paper.

    ``reason`` is a template over measured values, ``evidence`` the ids of the claims that must pass
    to show it.
    """

    reason: str
    evidence: tuple[str, ...]

    def __post_init__(self):
        """Reject a deviation without evidence (``ValueError``)."""
        if not self.evidence:
            raise ValueError("a deviation needs at least one evidence claim")


@dataclass(frozen=True)
class Claim:
    """One checkable statement: ``reproduced`` (from a table) compared with ``expected``."""

    id: str
    paper: str
    section: str
    claim: str
    expected: float
    table: str
    column: str
    kind: str
    select: dict = field(default_factory=dict)
    comparison: str = "abs"
    tolerance: float = 0.0
    deviation: Deviation | None = None
    draws: str = "exact"
    margin: float = 0.0
    """The smallest effect of interest of the claim's quantity (registry ``margins:``): an
    ``interval`` claim fails once its interval excludes the region shrunk by it."""
    quote: str = ""
    reading: str = ""
    reduce: str = ""
    """``"max"``: the claim judges the largest ``column`` over every row ``select`` matches (a worst
    case, e.g. a ledger's worst point), not one row's value; an infinite worst case is a value."""
    alternative_of: str = ""
    """The id of the claim whose sentence this one reads the other way, where the paper's sentence
    allows two readings: both are published and judged, neither replaces the other. It quotes the
    same sentence and judges its cell by another criterion."""

    def __post_init__(self):
        """Check the comparison, the kind, ``expected``, the tolerance and the draws; ``ValueError`` names the claim.

        An absolute tolerance as large as a non-zero ``expected`` cannot tell the value's sign and is
        refused (state it relative instead).
        """
        if self.comparison not in COMPARISONS:
            raise ValueError(
                f"claim {self.id}: comparison must be one of {sorted(COMPARISONS)}, got {self.comparison!r}"
            )
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {list(KINDS)}, got {self.kind!r}")
        if isinstance(self.expected, bool) or isinstance(self.tolerance, bool):
            raise ValueError(f"claim {self.id}: expected and tolerance must be numbers, not booleans")
        if not math.isfinite(self.expected):
            raise ValueError(f"claim {self.id}: expected must be a finite number, got {self.expected}")
        if not (math.isfinite(self.tolerance) and self.tolerance >= 0):
            raise ValueError(f"claim {self.id}: tolerance must be finite and non-negative, got {self.tolerance}")
        if self.comparison == "abs" and self.expected != 0 and self.tolerance >= abs(self.expected):
            raise ValueError(
                f"claim {self.id}: tolerance {self.tolerance:g} contains zero around expected {self.expected:g}, "
                "so the criterion cannot tell the sign; use comparison: rel"
            )
        if self.draws not in DRAWS:
            raise ValueError(f"claim {self.id}: draws must be one of {list(DRAWS)}, got {self.draws!r}")
        if self.reduce not in ("", "max"):
            raise ValueError(f"claim {self.id}: reduce must be 'max' or absent, got {self.reduce!r}")
        if self.reduce and self.draws != "exact":
            raise ValueError(f"claim {self.id}: a reduced claim judges exact values, not {self.draws!r} draws")
        if isinstance(self.margin, bool) or not (math.isfinite(self.margin) and self.margin >= 0):
            raise ValueError(f"claim {self.id}: margin must be finite and non-negative, got {self.margin!r}")
        if self.margin and self.draws != "interval":
            raise ValueError(f"claim {self.id}: a margin applies to interval draws, not {self.draws!r}")
        if self.draws == "seeds" and self.comparison != "abs":
            raise ValueError(f"claim {self.id}: a seeds claim widens an abs tolerance, not a {self.comparison} one")

    @property
    def region(self) -> tuple[float, float, bool]:
        """The accepted region ``(low, high, strict)`` of the reproduced value (strict: open at its bound)."""
        e, t = self.expected, self.tolerance
        return {
            "abs": (e - t, e + t, False),
            "rel": (e - t * abs(e), e + t * abs(e), False),
            "le": (-math.inf, e + t, False),
            "ge": (e - t, math.inf, False),
            "range": (e, e + t, False),
            "lt": (-math.inf, e - t, True),
            "gt": (e + t, math.inf, True),
        }[self.comparison]

    def holds(self, reproduced: float) -> bool:
        """Return whether ``reproduced`` lies in the accepted region; None, NaN or ±inf never does."""
        if reproduced is None or not math.isfinite(reproduced):
            return False
        low, high, strict = self.region
        return low < reproduced < high if strict else low <= reproduced <= high


def _deviation(entry, claim_id: str) -> Deviation | None:
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"reason", "evidence"}:
        raise ValueError(f"claim {claim_id}: deviation must be a mapping with exactly 'reason' and 'evidence'")
    return Deviation(reason=str(entry["reason"]), evidence=tuple(entry["evidence"]))


def _case_label(value) -> str:
    return "".join(ch if ch.isalnum() or ch == "." else "_" for ch in str(value)).strip("_")


_UNREAD_NUMBER = re.compile(r"[-+]?\d+[eE][-+]?\d+")
"""A number YAML 1.1 reads as text: an exponent without a dot, such as ``1e-05``."""


def _check_select(select: dict, claim_id: str) -> None:
    """Each selected value is one cell: never a mapping, nor a number that YAML 1.1 read as text."""
    for column, value in select.items():
        if isinstance(value, (dict, list)):
            raise ValueError(f"claim {claim_id}: select {column!r} must be one value, got {value!r}")
        if isinstance(value, str) and _UNREAD_NUMBER.fullmatch(value):
            raise ValueError(
                f"claim {claim_id}: select {column}: {value!r} is text to YAML 1.1; write the number "
                f"with a dot ({float(value):.1e}) or quote a text column's value differently"
            )


def _case_words(column: str, value) -> tuple[str, str]:
    """How a case's selection reads in its statement and its id: ``("m=3", "m3")``; text as it is."""
    if isinstance(value, str):
        return value, _case_label(value)
    return f"{column}={value}", f"{column}{_case_label(value)}"


def expand_cases(entry: dict) -> list[dict]:
    """One registry entry per claim: a spec table (an entry with ``cases``) gives one per case.

    Each case adds its ``select`` values (e.g. ``{K: 11, m: 3, l: 6}``, one typed column each) to
    the entry's and states its own ``expected``; everything else is the entry's. A case's id is the
    entry's id followed by the values that vary between cases (``gamma_opt_k11_m3_l6``) unless it
    names one, and its statement ends with them (``m=3, l=6``; a text selection as it is).
    """
    if "cases" not in entry:
        return [entry]
    shared = {key: value for key, value in entry.items() if key != "cases"}
    selections, labels = [], []
    for case in entry["cases"]:
        if "expected" not in case:
            raise ValueError(f"claim {entry['id']}: every case needs its own expected value")
        selected = {key: value for key, value in case.items() if key not in ("id", "expected")}
        selections.append(selected)
        labels.append({key: _case_words(key, value) for key, value in selected.items()})
    keys = list(dict.fromkeys(key for label in labels for key in label))
    varying = [key for key in keys if len({str(label.get(key)) for label in labels}) > 1]
    claims = []
    for case, selected, label in zip(entry["cases"], selections, labels):
        shown = [label[key] for key in varying if key in label]
        text = ", ".join(words for words, _ in shown)
        suffix = "_".join(slug for _, slug in shown)
        source = {**shared["from"], "select": {**shared["from"].get("select", {}), **selected}}
        claims.append(
            {
                **shared,
                "id": case.get("id", f"{shared['id']}_{suffix}" if suffix else shared["id"]),
                "claim": f"{shared['claim']} ({text})" if text else shared["claim"],
                "expected": case["expected"],
                "from": source,
            }
        )
    return claims


REGISTRY_KEYS = frozenset({"paper", "draws", "margins", "claims"})
"""The keys of a registry document."""
ENTRY_KEYS = frozenset(
    {
        "id",
        "section",
        "claim",
        "expected",
        "comparison",
        "tolerance",
        "kind",
        "from",
        "reading",
        "quote",
        "cases",
        "deviation",
        "alternative_of",
    }
)
"""The keys of a registry entry (a case's other keys are columns it selects)."""
SOURCE_KEYS = frozenset({"table", "column", "select", "reduce"})
"""The keys of an entry's ``from``."""
NUMBERS = ("expected", "tolerance")
"""The numbers of an entry: a YAML boolean (``yes``, ``on``, ``true``) is not one."""


def _unknown_keys(mapping, known, where: str) -> None:
    """Refuse a mapping with a key outside ``known`` (or that is not a mapping), naming ``where`` and the key."""
    if not isinstance(mapping, dict):
        raise ValueError(f"{where} must be a mapping, got {mapping!r:.80}")
    if unknown := sorted(map(str, set(mapping) - known)):
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")


def _number(entry: dict, key: str) -> float:
    """``entry[key]`` as a float: a number, or text YAML 1.1 left unread ("1e-09"); never a boolean."""
    value = entry[key]
    if isinstance(value, bool):
        raise ValueError(
            f"claim {entry.get('id')}: {key} must be a number, got {value!r} "
            "(YAML reads yes, no, on, off, true and false as booleans)"
        )
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"claim {entry.get('id')}: {key} must be a number, got {value!r:.80}") from None


MARGIN_KEYS = frozenset({"margin", "source"})
"""The keys of a ``margins:`` entry: the value, in the quantity's units, and where it comes from."""


def _margins(document: dict, draws: dict, path) -> dict[str, tuple[float, str]]:
    """Return the registry's ``margins:`` (``table`` or ``table.column`` -> margin and source), checked.

    Each entry is ``{margin: <number ≥ 0>, source: <text>}`` on a quantity declared ``interval``;
    else ``ValueError`` naming the key.
    """
    margins = document.get("margins") or {}
    if not isinstance(margins, dict):
        raise ValueError(f"{path}: margins must be a mapping, got {margins!r:.80}")
    checked = {}
    for key, entry in margins.items():
        _unknown_keys(entry, MARGIN_KEYS, f"{path}: margins: {key}")
        if set(entry) != MARGIN_KEYS or not str(entry["source"]).strip():
            raise ValueError(f"{path}: margins: {key} needs a margin and its source")
        table = str(key).split(".")[0]
        if draws.get(key, draws.get(table)) != "interval":
            raise ValueError(f"{path}: margins: {key} is not declared interval in draws")
        value = _number({**entry, "id": f"margins: {key}"}, "margin")
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{path}: margins: {key} must be finite and non-negative, got {value}")
        checked[key] = value, str(entry["source"])
    return checked


def registry_margins(path: str | Path) -> dict[str, tuple[float, str]]:
    """Return the margins of ``workflow/claims/<paper>.yaml``: quantity -> (margin, source)."""
    document = yaml_file(path)
    return _margins(document, document.get("draws") or {}, path)


def load_registry(path: str | Path) -> list[Claim]:
    """Read the claims of ``workflow/claims/<paper>.yaml``, checking the registry.

    Read by :func:`dpreplication.validation.yaml_file` (over 1 MB, or aliases expanding beyond
    10,000 nodes: refused before it is built). Only known keys (:data:`ENTRY_KEYS`,
    :data:`SOURCE_KEYS`), each ``expected`` and ``tolerance`` a number and not a YAML boolean
    (``tolerance: yes`` used to read as 1.0), ids unique, evidence ids present and not themselves
    deviations (nor the claim itself), every template placeholder a claim id of the registry (or
    reproduced/expected), every ``draws:`` entry a known kind, every ``margins:`` entry a
    non-negative number with its source (:func:`_margins`); else ``ValueError`` naming the claim
    and the key. A claim's ``draws`` and ``margin`` are its column's entry (``table.column``),
    else its table's, else ``exact`` and 0.
    """
    document = yaml_file(path)
    _unknown_keys(document, REGISTRY_KEYS, str(path))
    paper = document["paper"]
    draws = document.get("draws") or {}
    unknown = {table: kind for table, kind in draws.items() if kind not in DRAWS}
    if unknown:
        raise ValueError(f"{path}: draws must be one of {list(DRAWS)}, got {unknown}")
    margins = {key: margin for key, (margin, _) in _margins(document, draws, path).items()}
    claims = []
    for item in document["claims"]:
        _unknown_keys(item, ENTRY_KEYS, f"claim {item.get('id')}" if isinstance(item, dict) else "a claim")
        _unknown_keys(item.get("from"), SOURCE_KEYS, f"claim {item.get('id')}: from")
    for entry in [claim for item in document["claims"] for claim in expand_cases(item)]:
        entry = dict(entry)
        source = entry.pop("from")
        # YAML 1.1 reads "1e-09" (no dot) as a string; the registry means a number.
        for number in NUMBERS:
            if number in entry:
                entry[number] = _number(entry, number)
        entry["deviation"] = _deviation(entry.get("deviation"), entry.get("id"))
        _check_select(source.get("select", {}), entry.get("id"))
        claims.append(
            Claim(
                paper=paper,
                table=source["table"],
                column=source["column"],
                select=source.get("select", {}),
                reduce=source.get("reduce", ""),
                draws=draws.get(f"{source['table']}.{source['column']}", draws.get(source["table"], "exact")),
                margin=margins.get(f"{source['table']}.{source['column']}", margins.get(source["table"], 0.0)),
                **entry,
            )
        )
    ids = [c.id for c in claims]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"{path}: duplicate claim ids {duplicates}")
    by_id = {c.id: c for c in claims}
    for claim in claims:
        if claim.deviation is None:
            continue
        for evidence in claim.deviation.evidence:
            if evidence not in by_id:
                raise ValueError(f"{path}: claim {claim.id} names unknown evidence {evidence!r}")
            if by_id[evidence].deviation is not None or evidence == claim.id:
                raise ValueError(f"{path}: claim {claim.id}: evidence {evidence!r} must be a plain claim")
        for name, _ in PLACEHOLDER.findall(claim.deviation.reason):
            if name not in by_id and name not in ("reproduced", "expected"):
                raise ValueError(f"{path}: claim {claim.id}: reason names unknown value {{{name}}}")
    for claim in claims:
        if claim.alternative_of:
            _check_alternative(claim, by_id.get(claim.alternative_of), path)
    return claims


def _check_alternative(claim: Claim, first: Claim | None, path) -> None:
    """Refuse a second reading that is no second reading (``ValueError`` naming both claims).

    It must name another claim of the registry that is itself a first reading, quote the same
    sentence, and judge by another criterion (column, comparison, expected or tolerance).
    """
    where = f"{path}: claim {claim.id}: alternative_of {claim.alternative_of!r}"
    if first is None or first.id == claim.id:
        raise ValueError(f"{where} names no other claim of the registry")
    if first.alternative_of:
        raise ValueError(f"{where} is itself a second reading: name the first")
    if not claim.quote or claim.quote != first.quote:
        raise ValueError(f"{where}: a second reading quotes the first reading's sentence")
    criterion = ("column", "comparison", "expected", "tolerance")
    if all(getattr(claim, key) == getattr(first, key) for key in criterion):
        raise ValueError(f"{where} judges by the same criterion: it is the same reading")


def claims_on(claims: list[Claim], tables: set[str] | dict) -> list[Claim]:
    """Return the claims a partial run (a slice of the workflow) can judge.

    Their table is among ``tables``, and so are those of the claims their deviation names (its
    evidence and the placeholders of its reason).
    """
    judged = {claim.id for claim in claims if claim.table in tables}
    return [claim for claim in claims if claim.id in judged and claims_named(claim) <= judged]


def claims_named(claim: Claim) -> set[str]:
    """Return the ids of the claims ``claim``'s deviation names: its evidence and its reason's placeholders."""
    if claim.deviation is None:
        return set()
    placeholders = {match.group(1) for match in PLACEHOLDER.finditer(claim.deviation.reason)}
    return (set(claim.deviation.evidence) | placeholders) - {"reproduced", "expected"}
