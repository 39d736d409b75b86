"""The privacy ledger: what each released quantity spent, recorded where its noise is drawn.

Every function that draws privacy noise calls one ``record_*`` function of the release recorder,
:mod:`dpreplication.releases.recorder` (re-exported here, its documented place), with the
parameters its sampler actually uses (the noise scale and the sensitivity it was given, the
selection's scale, DP-SGD's noise multiplier, sampling rate and steps), not the ε its caller meant
to spend. A job opens :func:`spending` around one released quantity (a curve point's model, a
teacher, a query set); the records of everything drawn inside go to that :class:`Ledger` without
an argument threaded through the calls (the recorder's :mod:`contextvars` variable). Outside
:func:`spending` a record costs one lookup and is dropped. The recorder sits below the mechanisms
and appends plain events; this module, above them, reads what they cost.

The ledger composes its events with a dp-accounting accountant
(:class:`~dpreplication.accounting.events.BasicCompositionAccountant` for pure and (ε, δ) events,
whose ε add up exactly; :class:`~dpreplication.accounting.events.AdvancedCompositionAccountant`
where the release states advanced composition, as a DaRRM query set does; dp-accounting's
``RdpAccountant`` over the integer orders of :data:`dpreplication.accounting.rdp.DEFAULT_ORDERS`
for DP-SGD) and refuses a record that would take its ε past the budget it was opened with
(:class:`PrivacyBudgetExceeded`).

What a ledger cannot see: a wrong sensitivity. A caller that under-states Δ draws too little noise
and records the ε it promised; the privacy audits of the mechanisms (exact privacy loss, hockey
stick) are the check for that.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from dpreplication.releases.recorder import (  # the recorder's names, re-exported from their documented place
    active_ledger as active_ledger,
)
from dpreplication.releases.recorder import (
    record_dp_sgd as record_dp_sgd,
)
from dpreplication.releases.recorder import (
    record_gaussian as record_gaussian,
)
from dpreplication.releases.recorder import (
    record_laplace as record_laplace,
)
from dpreplication.releases.recorder import (
    record_library as record_library,
)
from dpreplication.releases.recorder import (
    record_non_private as record_non_private,
)
from dpreplication.releases.recorder import (
    record_objective_perturbation as record_objective_perturbation,
)
from dpreplication.releases.recorder import (
    record_report_noisy_max as record_report_noisy_max,
)
from dpreplication.releases.recorder import (
    record_truncated_laplace as record_truncated_laplace,
)
from dpreplication.releases.recorder import (
    recording,
)
from dpreplication.validation import in_unit_interval, non_negative, whole_number

LEDGER_COLUMNS = ["spent_epsilon", "spent_delta", "draws", "mechanisms", "events"]
"""The columns of :meth:`Ledger.summary`, as a job's rows carry them."""
RELATIVE_TOLERANCE = 1e-9
"""Float slack of the budget guard and of a ledger check: ε summed over many parts of a budget."""


class PrivacyBudgetExceeded(RuntimeError):
    """A release would take a ledger's spending past its budget; nothing was drawn."""


@dataclass(frozen=True)
class Entry:
    """One record: ``count`` draws of ``event`` by ``mechanism``, each ``(epsilon, delta)``-DP (NaN: RDP only)."""

    mechanism: str
    event: object
    count: int
    epsilon: float
    delta: float


@dataclass
class Ledger:
    """The records of one released quantity, and the budget it may spend (``None``: not capped).

    ``release_delta``: the δ at which an event with a curve of guarantees (Gaussian, majority vote)
    is read, per release; ``delta_prime``: compose by advanced composition with this δ' (``None``:
    basic composition).

    The budget is a finite ε ≥ 0 (``None``, not ∞, is "no cap") and a finite δ ≥ 0 (a composed
    total may exceed 1, which promises nothing; an RDP record is then refused when it is read at
    that δ), the release δ lies in [0, 1) and δ' in (0, 1]; a ``ValueError`` names the one that
    does not (a NaN budget used to cap nothing, a NaN δ read DP-SGD as ε = 0).
    """

    budget_epsilon: float | None = None
    budget_delta: float = 0.0
    release_delta: float | None = None
    delta_prime: float | None = None
    entries: list[Entry] = field(default_factory=list)
    pure_epsilon: float = 0.0
    """Running ε of the records that have one (the budget guard's sum; :meth:`spent` composes exactly)."""

    def __post_init__(self):
        """Refuse a budget, δ or δ' out of range (NaN included), naming it."""
        if self.budget_epsilon is not None:
            non_negative("budget_epsilon", self.budget_epsilon)
        non_negative("budget_delta", self.budget_delta)  # a composed total may pass 1: vacuous, not refused
        non_negative("pure_epsilon", self.pure_epsilon)
        if self.release_delta is not None:
            in_unit_interval("release_delta", self.release_delta)
        if self.delta_prime is not None:
            in_unit_interval("delta_prime", self.delta_prime, include_zero=False, include_one=True)

    def add(self, mechanism: str, event, count: int = 1) -> None:
        """Record ``count`` draws of ``event``; refuse them, before they are drawn, beyond the budget.

        Under basic composition a pure or (ε, δ) event is capped on the running sum of ε; an RDP
        event (DP-SGD), and every event under advanced composition, on the ledger's composed ε with
        the new event. A ``count`` that is not a whole number ``≥ 0``, an event parameter out of
        range (a negative or NaN scale, :func:`~dpreplication.accounting.events.check_event`) or an
        (ε, δ) that is not ``ε ≥ 0``, ``0 ≤ δ ≤ 1`` raises ``ValueError``: none may lower the total.
        """
        from dpreplication.accounting.events import NoEpsilonDelta, check_event, epsilon_delta

        count = whole_number("count", count)
        check_event(event)
        try:
            epsilon, delta = epsilon_delta(event, self.release_delta)
        except NoEpsilonDelta:  # an RDP event: no (ε, δ) of its own
            epsilon, delta = math.nan, math.nan
        else:
            non_negative(f"ε of {mechanism}", epsilon, allow_infinity=True)
            in_unit_interval(f"δ of {mechanism}", delta, include_one=True)
        entry = Entry(mechanism, event, count, epsilon, delta)
        spent = self.pure_epsilon + (0.0 if math.isnan(epsilon) else count * epsilon)
        if self.budget_epsilon is not None:
            additive = self.delta_prime is None and not math.isnan(epsilon)
            taken = spent if additive else replace(self, entries=[*self.entries, entry]).spent()[0]
            if taken > self.budget_epsilon * (1.0 + RELATIVE_TOLERANCE):
                raise PrivacyBudgetExceeded(
                    f"{mechanism} would spend {_cost(entry)}, taking this release to ε = {taken:.6g} of its "
                    f"budget ε = {self.budget_epsilon:.6g}"
                )
        self.pure_epsilon = spent
        self.entries.append(entry)

    def event(self):
        """Everything recorded, as one dp-accounting ``ComposedDpEvent`` of ``SelfComposedDpEvent``."""
        from dp_accounting import dp_event

        return dp_event.ComposedDpEvent([dp_event.SelfComposedDpEvent(e.event, e.count) for e in self.entries])

    def spent(self) -> tuple[float, float]:
        """Composed ``(ε, δ)``: basic (or advanced) composition when every event has an (ε, δ), else RDP at the budget's δ."""
        from dpreplication.accounting.events import (
            AdvancedCompositionAccountant,
            BasicCompositionAccountant,
            rdp_epsilon,
        )

        if self.delta_prime is None:
            accountant = BasicCompositionAccountant(self.release_delta)
        else:
            accountant = AdvancedCompositionAccountant(self.delta_prime, self.release_delta)
        if accountant.supports(self.event()):
            accountant.compose(self.event())
            return accountant.epsilon, accountant.delta
        records = tuple((entry.event, entry.count) for entry in self.entries)
        return rdp_epsilon(records, self.budget_delta), self.budget_delta

    def describe(self) -> str:
        """``mechanism ε=… ×count`` per kind of record, in the order first recorded; ``"none"`` if empty."""
        counts = Counter()
        for entry in self.entries:
            counts[(entry.mechanism, _format(entry.epsilon, entry.event))] += entry.count
        return "; ".join(f"{mechanism} {cost} ×{count}" for (mechanism, cost), count in counts.items()) or "none"

    def summary(self) -> dict:
        """:data:`LEDGER_COLUMNS`: composed (ε, δ), draws (records × their counts), mechanisms, :meth:`describe`."""
        epsilon, delta = self.spent()
        return {
            "spent_epsilon": epsilon,
            "spent_delta": delta,
            "draws": sum(entry.count for entry in self.entries),
            "mechanisms": " + ".join(dict.fromkeys(entry.mechanism for entry in self.entries)) or "none",
            "events": self.describe(),
        }


def _cost(entry: Entry) -> str:
    if math.isnan(entry.epsilon):
        return f"{entry.count} × {type(entry.event).__name__}"
    return f"ε = {entry.count * entry.epsilon:.6g} ({entry.count} × {entry.epsilon:.6g})"


def _format(epsilon: float, event) -> str:
    return f"ε={epsilon:.6g}" if not math.isnan(epsilon) else type(event).__name__


@contextmanager
def spending(
    budget_epsilon: float | None = None,
    budget_delta: float = 0.0,
    *,
    release_delta: float | None = None,
    delta_prime: float | None = None,
) -> Iterator[Ledger]:
    """Collect the records of everything released inside the block in a new :class:`Ledger`.

    ``budget_epsilon``: the ε the block may spend (``None``: no cap); ``release_delta`` and
    ``delta_prime`` as in :class:`Ledger`. Blocks nest: the inner ledger takes the records of its
    block only (the recorder's :func:`~dpreplication.releases.recorder.recording` routes them).

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.accounting import spending
    >>> from dpreplication.mechanisms import laplace_mechanism
    >>> with spending(budget_epsilon=1.0) as ledger:
    ...     first = laplace_mechanism(3.0, 0.25, np.random.default_rng(0))
    ...     second = laplace_mechanism(3.0, 0.75, np.random.default_rng(1), sensitivity=2.0)
    >>> ledger.spent(), ledger.describe()
    ((1.0, 0.0), 'laplace_mechanism ε=0.25 ×1; laplace_mechanism ε=0.75 ×1')
    """
    ledger = Ledger(budget_epsilon, budget_delta, release_delta, delta_prime)
    with recording(ledger):
        yield ledger


# =========================================================================== per published point


def relative_error(spent, stated):
    """``|spent/stated - 1|``, 0 where both are infinite (a non-private release stated as such)."""
    spent, stated = np.asarray(spent, dtype=float), np.asarray(stated, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.abs(spent / stated - 1.0)
    return np.where(np.isinf(spent) & np.isinf(stated), 0.0, error)


def _worst(values) -> float:
    """Return the largest of ``values``, NaN if any is NaN (pandas' ``max`` skips NaN)."""
    return values.max(skipna=False)


PROMISES = ("exact", "at most")
"""What a point's stated ε promises: exactly what it spends, or a bound on it (a conservative bound, named)."""


def ledger_table(rows, by, *, stated="epsilon", non_private=None, release=("repetition", "fold"), promise="exact"):
    """One row per published point (``by`` + ``stated``): its releases' ledgers against its stated ε.

    ``rows`` are a job's rows (one per release, or several per release for a trace: deduplicated on
    ``by``, ``release`` and ``stated``), carrying :data:`LEDGER_COLUMNS` (and ``failure``,
    ``budget_share`` where a job has them). The rows that ``non_private`` (``{column: values}``)
    matches state no budget (ε = ∞); every other point states the ε of its ``stated`` column, times
    its ``budget_share`` where the release names a conservative split (it spends only that share).
    Releases that failed released nothing and are counted apart. ``ledger_error`` is the worst
    ``|spent/stated - 1|`` of the point's releases: 0 up to float error when every release spent
    exactly what it states; an over- or under-spending release shows as a positive error. Where the
    stated ε is a bound (``promise="at most"``) only overspending is an error, ``max(spent/stated -
    1, 0)``, and ``spent_share`` (the largest ``spent/stated``) reports the underspending. A release
    whose spent (or stated) ε is NaN makes its point's worst error NaN, never a smaller one: the
    claim that reads it then fails instead of passing on the other releases.
    """
    if promise not in PROMISES:
        raise ValueError(f"promise must be one of {PROMISES}, got {promise!r}")
    keys = [*by, stated]
    releases = rows.drop_duplicates([*by, *release, stated])
    failed = np.zeros(len(releases), dtype=bool)
    if "failure" in releases:
        failed = (releases["failure"].fillna("").astype(str) != "").to_numpy()
    released = releases.loc[~failed].copy()
    free = np.zeros(len(released), dtype=bool)
    for column, values in (non_private or {}).items():
        free |= released[column].isin(values).to_numpy()
    share = released["budget_share"] if "budget_share" in released else 1.0
    released["stated_epsilon"] = np.where(free, np.inf, released[stated] * share)
    if promise == "exact":
        released["ledger_error"] = relative_error(released["spent_epsilon"], released["stated_epsilon"])
    else:
        released["spent_share"] = released["spent_epsilon"] / released["stated_epsilon"]
        released["ledger_error"] = np.maximum(released["spent_share"] - 1.0, 0.0)
    named = {"budget_share": ("budget_share", "first")} if "budget_share" in released else {}
    if promise != "exact":
        named["spent_share"] = ("spent_share", _worst)
    table = released.groupby(keys, dropna=False, sort=False).agg(
        **named,
        stated_epsilon=("stated_epsilon", "first"),
        releases=("spent_epsilon", "size"),
        spent_epsilon_min=("spent_epsilon", "min"),
        spent_epsilon_max=("spent_epsilon", "max"),
        spent_delta_max=("spent_delta", "max"),
        draws_min=("draws", "min"),
        draws_max=("draws", "max"),
        mechanisms=("mechanisms", lambda names: " | ".join(dict.fromkeys(names))),
        ledger_error=("ledger_error", _worst),
    )
    failures = releases.loc[failed].groupby(keys, dropna=False, sort=False).size().rename("failed_releases")
    table = table.join(failures).fillna({"failed_releases": 0}).reset_index()
    return table.astype({"failed_releases": int}).sort_values(keys, ignore_index=True)


def ledger_digest(table) -> dict:
    """Summarise a :func:`ledger_table` for the sidecar: points, releases, mechanisms, worst error."""
    mechanisms = sorted(
        {name for cell in table["mechanisms"] for part in cell.split(" | ") for name in part.split(" + ")}
    )
    return {
        "points": len(table),
        "releases": int(table["releases"].sum()),
        "failed_releases": int(table["failed_releases"].sum()),
        "mechanisms": mechanisms,
        "worst_ledger_error": float(table["ledger_error"].max(skipna=False)) if len(table) else None,
    }
