"""The accountants fail closed: what is not a finite, non-negative cost never lowers a total.

Every public function of :mod:`dpreplication.accounting` that takes an ε, a δ, a noise scale or
multiplier, a sampling rate, a count, a budget or a cost refuses a value out of its range with a
``ValueError`` naming the argument and its value. Before (issue #51), a negative scale or count
recorded a negative ε and lowered the ledger's running total (ε = 2 spent under a budget of 1,
reported as 1.0), a NaN budget capped nothing, a DP-SGD ledger at δ = NaN reported ε = 0 where
the true ε is 439, and :func:`~dpreplication.accounting.ledger.ledger_table` dropped a release
whose spent ε is NaN from its point's worst error.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from dp_accounting import dp_event

from dpreplication.accounting import ledger, rdp
from dpreplication.accounting.events import (
    AdvancedCompositionAccountant,
    BasicCompositionAccountant,
    LibraryDpEvent,
    ObjectivePerturbationDpEvent,
    ReportNoisyMaxDpEvent,
    TruncatedLaplaceDpEvent,
    epsilon_delta,
    rdp_epsilon,
)
from dpreplication.accounting.hockey_stick import audit_noise_privacy
from dpreplication.accounting.privacy_loss import max_privacy_loss
from dpreplication.accounting.privacy_verifier import (
    brute_force_privacy_check,
    effective_budget,
    iid_privacy_violation,
    verify_privacy,
)
from dpreplication.mechanisms import gamma_subsampling
from dpreplication.scorecard.claims import Claim
from dpreplication.scorecard.evaluation import evaluate_claims

# --------------------------------------------------------------------------- the ledger's records

RECORDS = {
    "negative Laplace scale": (lambda: ledger.record_laplace("m", -1.0, 1.0), "scale must be positive and finite, got -1.0"),
    "NaN Laplace scale": (lambda: ledger.record_laplace("m", math.nan, 1.0), "scale must be positive and finite, got nan"),
    "negative sensitivity": (lambda: ledger.record_laplace("m", 1.0, -1.0), "sensitivity must be positive and finite, got -1.0"),
    "negative count": (lambda: ledger.record_laplace("m", 1.0, 1.0, count=-1), "count must be an integer ≥ 0, got -1"),
    "fractional count": (lambda: ledger.record_laplace("m", 1.0, 1.0, count=0.5), "count must be an integer ≥ 0, got 0.5"),
    "negative selection scale": (
        lambda: ledger.record_report_noisy_max("m", "gumbel", -2.0, 1.0),
        "scale must be positive and finite, got -2.0",
    ),
    "negative selection count": (
        lambda: ledger.record_report_noisy_max("m", "gumbel", 2.0, 1.0, count=-3),
        "count must be an integer ≥ 0, got -3",
    ),
    "negative objective-perturbation scale": (
        lambda: ledger.record_objective_perturbation("m", -1.0, 0.25, 100, 1e-3),
        "noise_scale must be positive and finite, got -1.0",
    ),
    "negative curvature": (
        lambda: ledger.record_objective_perturbation("m", 1.0, -0.25, 100, 1e-3),
        "curvature must be non-negative and finite, got -0.25",
    ),
    "truncated Laplace at a NaN bound": (
        lambda: ledger.record_truncated_laplace("m", 1.0, math.nan, 1.0),
        "bound must be positive and finite, got nan",
    ),
    "negative Gaussian scale": (lambda: ledger.record_gaussian("m", -1.0, 1.0), "scale must be positive and finite, got -1.0"),
    "negative DP-SGD steps": (lambda: ledger.record_dp_sgd("m", 1.1, 0.01, -1000), "steps must be an integer ≥ 0, got -1000"),
    "NaN DP-SGD noise": (lambda: ledger.record_dp_sgd("m", math.nan, 0.01, 10), "noise_multiplier must be positive and finite, got nan"),
    "DP-SGD rate above 1": (lambda: ledger.record_dp_sgd("m", 1.1, 1.5, 10), r"sampling_probability must lie in \(0, 1\], got 1.5"),
    "a library's negative ε": (lambda: ledger.record_library("m", "lib", -1.0), "epsilon must be non-negative and finite, got -1.0"),
    "a library's NaN δ": (lambda: ledger.record_library("m", "lib", 0.1, math.nan), r"delta must lie in \[0, 1\), got nan"),
    "an event added directly": (
        lambda: ledger.active_ledger().add("m", dp_event.LaplaceDpEvent(-1.0)),
        "noise_multiplier must be non-negative and finite, got -1.0",
    ),
}  # fmt: skip
"""A record out of range → the message naming the argument and its value."""


@pytest.mark.parametrize("name", RECORDS)
def test_a_record_out_of_range_is_refused_and_never_lowers_the_total(name):
    """The issue's case: ε = 1 spent, a record of scale −1 (ε = −1), then ε = 1 again passed a
    budget of 1 and reported 1.0 for 2.0 spent. Now the negative record is refused, and the second
    ε = 1 is over budget."""
    record, message = RECORDS[name]
    with ledger.spending(1.0) as spent:
        ledger.record_laplace("first", 1.0, 1.0)
        with pytest.raises(ValueError, match=message):
            record()
        with pytest.raises(ledger.PrivacyBudgetExceeded):
            ledger.record_laplace("second", 1.0, 1.0)
    assert spent.spent() == (1.0, 0.0) and len(spent.entries) == 1


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"budget_epsilon": math.nan}, "budget_epsilon must be non-negative and finite, got nan"),
        ({"budget_epsilon": -1.0}, "budget_epsilon must be non-negative and finite, got -1.0"),
        ({"budget_epsilon": math.inf}, "budget_epsilon must be non-negative and finite, got inf"),  # None: no cap
        ({"budget_delta": math.nan}, "budget_delta must be non-negative and finite, got nan"),
        ({"budget_delta": -1e-5}, "budget_delta must be non-negative and finite, got -1e-05"),
        ({"release_delta": -1e-5}, r"release_delta must lie in \[0, 1\), got -1e-05"),
        ({"delta_prime": 0.0}, r"delta_prime must lie in \(0, 1\], got 0.0"),
    ],
)
def test_a_ledger_refuses_a_budget_or_delta_out_of_range(arguments, message):
    """Before, ``spending(nan)`` capped nothing: ε = 100 passed it."""
    with pytest.raises(ValueError, match=message), ledger.spending(**arguments):
        ledger.record_laplace("m", 0.01, 1.0)


def test_dp_sgd_at_a_nan_delta_is_refused_not_read_as_epsilon_zero():
    """σ = 0.5, q = 0.1, 1,000 steps spend ε = 439 at δ = 1e-5; at δ = NaN the ledger (and
    dp-accounting's RDP accountant) used to report ε = 0."""
    with ledger.spending(budget_delta=1e-5) as spent:
        ledger.record_dp_sgd("dp_sgd", 0.5, 0.1, 1000)
    assert spent.spent()[0] == pytest.approx(439.296, rel=1e-5)
    with pytest.raises(ValueError, match="budget_delta must be non-negative and finite, got nan"):
        ledger.spending(budget_delta=math.nan).__enter__()
    with ledger.spending(budget_delta=1.5) as vacuous:  # a δ past 1 (a composed total) promises nothing
        ledger.record_dp_sgd("dp_sgd", 0.5, 0.1, 1000)
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got 1.5"):
        vacuous.spent()
    with ledger.spending(500.0, 1.5), pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got 1.5"):
        ledger.record_dp_sgd("dp_sgd", 0.5, 0.1, 1000)
    step = dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(0.5))
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got nan"):
        rdp_epsilon(((step, 1000),), math.nan)
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got nan"):
        epsilon_delta(dp_event.GaussianDpEvent(1.0), math.nan)


# --------------------------------------------------------------------------- the privacy maps, the accountants


@pytest.mark.parametrize(
    "event, message",
    [
        (dp_event.LaplaceDpEvent(-2.0), "noise_multiplier must be non-negative and finite, got -2.0"),
        (ReportNoisyMaxDpEvent("gumbel", 2.0, -1.0), "sensitivity must be non-negative and finite, got -1.0"),
        (ReportNoisyMaxDpEvent("gumbel", math.nan, 1.0), "noise_scale must be non-negative and finite, got nan"),
        (ObjectivePerturbationDpEvent(1.0, 0.25, 0, 1e-3), "n must be an integer ≥ 1, got 0"),
        (TruncatedLaplaceDpEvent(-1.0, 10.0, 1.0), "scale must be positive and finite, got -1.0"),
        (LibraryDpEvent("lib", -0.5, 0.0), "epsilon must be non-negative \\(inf allowed\\), got -0.5"),
        (dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(1.0), -3), "count must be an integer ≥ 0, got -3"),
        (
            dp_event.ComposedDpEvent([dp_event.LaplaceDpEvent(1.0), dp_event.LaplaceDpEvent(-1.0)]),
            "noise_multiplier must be non-negative and finite, got -1.0",
        ),
    ],
)
def test_privacy_maps_and_accountants_refuse_an_event_out_of_range(event, message):
    """Before, ``epsilon_delta(LaplaceDpEvent(-2))`` was ε = −0.5, and a basic-composition accountant
    composed it into a smaller total."""
    with pytest.raises(ValueError, match=message):
        epsilon_delta(event)
    for accountant in (BasicCompositionAccountant(), AdvancedCompositionAccountant(1e-5)):
        with pytest.raises(ValueError, match=message.split(" must")[0].removesuffix("`")):
            accountant.compose(event)


def test_accountants_refuse_a_delta_out_of_range():
    with pytest.raises(ValueError, match=r"release_delta must lie in \[0, 1\), got nan"):
        BasicCompositionAccountant(math.nan)
    with pytest.raises(ValueError, match=r"delta_prime must lie in \(0, 1\], got nan"):
        AdvancedCompositionAccountant(math.nan)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: rdp.rdp_to_epsilon(-np.ones(999), rdp.DEFAULT_ORDERS, 1e-5),
            r"rdp must be non-negative \(inf allowed\)",
        ),
        (lambda: max_privacy_loss([0.5, math.nan], [0.5, 0.5]), "pmf must be non-negative and finite"),
        (lambda: max_privacy_loss([0.5, 0.5], [1.5, -0.5]), "neighbour_pmf must be non-negative and finite"),
        (
            lambda: verify_privacy(GAMMA, 11, 3, 0.1, tolerance=math.nan),
            "tolerance must be non-negative and finite, got nan",
        ),
        (lambda: effective_budget(GAMMA, 11, 0.1, resolution=0.0), "resolution must be positive and finite, got 0.0"),
        (
            lambda: effective_budget(GAMMA, 11, 0.1, resolution=math.nan),
            "resolution must be positive and finite, got nan",
        ),
        (lambda: iid_privacy_violation(GAMMA, 11, 3, 0.1, n_grid=1), "n_grid must be an integer ≥ 2, got 1"),
        (
            lambda: brute_force_privacy_check(GAMMA, 11, 3, 0.1, 0.0, 0.0, -5, np.random.default_rng(0)),
            "n_points must be an integer ≥ 1, got -5",
        ),
        (lambda: audit(shifts_per_side=0), "shifts_per_side must be an integer ≥ 1, got 0"),
        (lambda: audit(n_points=math.nan), "n_points must be an integer ≥ 1, got nan"),
        (lambda: audit(rel_tol=-1.0), "rel_tol must be non-negative and finite, got -1.0"),
        (lambda: audit(support=(1.0, -1.0)), r"support must be an interval \(lo, hi\) with lo < hi"),
        (lambda: audit(support=(-math.inf, 1.0)), "support must be finite"),
    ],
)
def test_the_other_accountants_refuse_what_would_lower_or_hide_a_cost(call, message):
    """Before: a negative RDP curve gave a smaller ε; a NaN pmf came back as the privacy loss NaN; a
    resolution of 0 never ended the bisection and a NaN one returned m_max unsearched; a grid of one
    point, or no points, audited nothing; an empty support divided by zero."""
    with pytest.raises(ValueError, match=message):
        call()


GAMMA = gamma_subsampling(11, 3)


def audit(**arguments):
    density = lambda x: np.exp(-np.abs(x)) / 2 * (np.abs(x) <= 30)  # noqa: E731
    return audit_noise_privacy(density, **{"epsilon": 1.0, "delta": 0.0, "support": (-30.0, 30.0), **arguments})


# --------------------------------------------------------------------------- a NaN release in the table


@pytest.mark.parametrize("promise", ["exact", "at most"])
def test_a_nan_release_makes_its_points_worst_error_nan_and_its_claim_fail(promise):
    """Two releases of one point, one of them NaN: its worst error used to be the other's, 0, and the
    ledger claim (worst error ≤ 1e-9) passed."""
    rows = pd.DataFrame(
        {"method": "A", "repetition": 0, "fold": [0, 1], "epsilon": 0.5, "spent_epsilon": [0.5, math.nan],
         "spent_delta": 0.0, "draws": 1, "mechanisms": "laplace_mechanism"}
    )  # fmt: skip
    table = ledger.ledger_table(rows, ["method"], promise=promise)
    assert math.isnan(table["ledger_error"].item()) and table["releases"].item() == 2
    assert math.isnan(ledger.ledger_digest(table)["worst_ledger_error"])
    claim = Claim(id="ledger", paper="p", section="s", claim="c", expected=0.0, table="t.ledger",
                  column="ledger_error", kind="sanity", comparison="le", tolerance=1e-9, reduce="max")  # fmt: skip
    assert evaluate_claims([claim], {"t.ledger": table})["status"].item() == "missing"
