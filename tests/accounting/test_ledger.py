"""The privacy ledger: every releasing function records, at its draw, the ε it actually spends.

Each releaser runs inside :func:`~dpreplication.accounting.ledger.spending` at a moderate ε and its
ledger must compose to the releaser's stated guarantee to 1e-9; a noise scale mutated by a factor 2
(the ``noise_scale`` and ``laplace_scale`` every selection and Laplace draw goes through) must show
in the ledger, and the budget guard must refuse an overspending draw before it draws.
"""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import RdpAccountant

from dpreplication.accounting import ledger, rdp
from dpreplication.accounting.events import (
    PRIVACY_MAPS,
    AdvancedCompositionAccountant,
    BasicCompositionAccountant,
    LibraryDpEvent,
    NoEpsilonDelta,
    ObjectivePerturbationDpEvent,
    ReportNoisyMaxDpEvent,
    TruncatedLaplaceDpEvent,
    epsilon_delta,
    privacy_map,
)
from dpreplication.learning import functional_mechanism, gupt_loose, models, objective_perturbation
from dpreplication.learning import output_perturbation as op
from dpreplication.learning import sample_and_aggregate as gupt
from dpreplication.learning.fitness import LogisticFitness
from dpreplication.learning.genetic import PrivGeneSettings, privgene
from dpreplication.mechanisms import additive, enhanced_exponential, gnmax, quantile, selection, selection_sampling
from dpreplication.mechanisms import majority as mj
from dpreplication.mechanisms import truncated_laplace as tl
from dpreplication.releases import events as releases_events
from dpreplication.releases.events import MajorityVoteDpEvent

EPSILON = 0.8
SCORES = np.array([3.0, 2.0, 0.0, 2.5, 1.0])


def rng():
    return np.random.default_rng(7)


def unit_data(n=400, d=3):
    generator = np.random.default_rng(3)
    x = generator.uniform(-1, 1, (n, d)) / np.sqrt(d)
    return x, np.where(x[:, 0] > 0, 1, -1)


RELEASES = {
    "laplace_mechanism": (lambda: additive.laplace_mechanism(np.zeros(4), EPSILON, rng(), 2.0), EPSILON),
    "report_noisy_max exponential": (
        lambda: selection_sampling.sample_report_noisy_max(SCORES, EPSILON, 1.0, 5, rng(), "exponential"),
        5 * EPSILON,
    ),
    "report_noisy_max gumbel": (
        lambda: selection_sampling.sample_report_noisy_max(SCORES, EPSILON, 1.0, 5, rng(), "gumbel"),
        5 * EPSILON,
    ),
    "report_noisy_max laplace": (
        lambda: selection_sampling.sample_report_noisy_max(SCORES, EPSILON, 1.0, 5, rng(), "laplace"),
        5 * EPSILON,
    ),
    "permute_and_flip batch": (
        lambda: selection_sampling.sample_permute_and_flip_batch(SCORES, EPSILON, 1.0, 3, rng()),
        3 * EPSILON,
    ),
    "permute_and_flip literal": (
        lambda: selection_sampling.sample_permute_and_flip_literal(SCORES, EPSILON, 1.0, 3, rng()),
        3 * EPSILON,
    ),
    "intermediate A": (lambda: selection_sampling.sample_intermediate_a(SCORES, EPSILON, 1.0, 2, rng()), 2 * EPSILON),
    "intermediate B": (lambda: selection_sampling.sample_intermediate_b(SCORES, EPSILON, 1.0, 2, rng()), 2 * EPSILON),
    "EEM select, k draws": (lambda: enhanced_exponential.select(SCORES, EPSILON, 2.0, 3, rng()), EPSILON),
    "EEM select, RNM-Exp": (lambda: enhanced_exponential.select(SCORES, EPSILON, 2.0, 2, rng(), "rnm_exp"), EPSILON),
    "private_quantile": (lambda: quantile.private_quantile(np.linspace(0, 1, 50), 0.5, EPSILON, 0, 1, rng()), EPSILON),
    "majority_classifier": (lambda: models.majority_classifier(np.array([0, 1, 1, 1.0]), EPSILON, rng()), EPSILON),
    "PrivateERM (ε' branch)": (lambda: objective_perturbation.fit_private_erm(*unit_data(), EPSILON, rng()), EPSILON),
    "PrivateERM (extra ridge branch)": (
        lambda: objective_perturbation.fit_private_erm(*unit_data(40), EPSILON, rng(), loss="huber"),
        EPSILON,
    ),
    "functional mechanism": (
        lambda: functional_mechanism.perturb_coefficients(np.zeros((3, 3)), np.zeros(3), EPSILON, rng()),
        EPSILON,
    ),
    "PrivateSVM": (lambda: op.privatise_svm_weights(np.ones(4), 500, EPSILON, rng()), EPSILON),
    "GUPT, φ = ½": (lambda: gupt.gupt_aggregate(np.zeros((20, 3)), (-1, 1), EPSILON, rng(), 0.5), EPSILON / 2),
    "GUPT loose range": (
        lambda: gupt_loose.gupt_loose_aggregate(np.linspace(-1, 1, 60).reshape(20, 3), (-1, 1), EPSILON, rng(), rng()),
        EPSILON,
    ),
    "PrivGene": (
        lambda: privgene(LogisticFitness(*unit_data()), EPSILON, PrivGeneSettings(m=20, c=0.05), rng()),
        EPSILON,
    ),
}
"""Releaser → (a call at ε = 0.8, the ε its guarantee states). Counts compose: n draws spend n·ε."""


@pytest.mark.parametrize("name", RELEASES)
def test_each_releaser_records_its_stated_epsilon(name):
    release, stated = RELEASES[name]
    with ledger.spending() as spent:
        release()
    epsilon, delta = spent.spent()
    assert epsilon == pytest.approx(stated, rel=1e-9, abs=0) and delta == 0, spent.describe()
    assert spent.summary()["spent_epsilon"] == epsilon and spent.summary()["draws"] >= 1


def test_privgene_spends_its_budget_over_its_rounds():
    """r rounds at ε/r: m' draws at ε/(r·m') each, the last round one draw at ε/r (Algorithm 1)."""
    with ledger.spending(EPSILON) as spent:
        run = privgene(LogisticFitness(*unit_data()), EPSILON, PrivGeneSettings(m=20, c=0.05, m_prime=2), rng())
    r = run.iterations
    assert r >= 2 and spent.summary()["draws"] == 2 * (r - 1) + 1
    assert [entry.epsilon for entry in spent.entries] == pytest.approx(
        [EPSILON / (2 * r)] * (2 * r - 2) + [EPSILON / r]
    )


def test_truncated_laplace_records_its_epsilon_and_delta_per_entry():
    with ledger.spending() as spent:
        tl.truncated_laplace_mechanism(np.zeros(3), EPSILON, 1e-5, rng())
    epsilon, delta = spent.spent()
    assert epsilon == pytest.approx(3 * EPSILON, rel=1e-12) and delta == pytest.approx(3e-5, rel=1e-9)


def test_dp_sgd_composes_by_rdp_to_the_reported_teacher_epsilon():
    """The DP-SGD record is dp-accounting's Poisson-sampled Gaussian, composed by its RDP accountant
    over our integer orders: the ε our accountant reports for a teacher, to 1e-9; beyond its budget
    the record is refused before any step is taken."""
    with ledger.spending(budget_delta=1e-5) as spent:
        ledger.record_dp_sgd("dp_sgd", 1.1, 0.01, 1000)
    reported = rdp.dp_sgd_epsilon(1.1, 0.01, 1000, 1e-5)
    assert spent.spent() == (pytest.approx(reported, rel=1e-9), 1e-5) and 1 < reported < 2
    step = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.1))
    assert RdpAccountant().compose(step, 1000).get_epsilon(1e-5) < reported  # its default orders are finer
    with ledger.spending(budget_epsilon=1.0, budget_delta=1e-5) as capped:
        with pytest.raises(ledger.PrivacyBudgetExceeded, match=r"dp_sgd would spend 1000 × PoissonSampledDpEvent"):
            ledger.record_dp_sgd("dp_sgd", 1.1, 0.01, 1000)
    assert capped.entries == []


def test_a_cached_rdp_composition_is_read_at_each_ledgers_own_delta_and_counts():
    """The composed ε is cached per records and δ (events.rdp_epsilon): the same teacher at another δ,
    or with one step more, is composed anew, each equal to our accountant's ε."""
    for delta, steps in [(1e-5, 500), (1e-4, 500), (1e-4, 501), (1e-5, 500)]:
        with ledger.spending(budget_delta=delta) as spent:
            ledger.record_dp_sgd("dp_sgd", 1.1, 0.01, steps)
        assert spent.spent()[0] == pytest.approx(rdp.dp_sgd_epsilon(1.1, 0.01, steps, delta), rel=1e-9)


def test_non_private_releases_record_infinite_epsilon():
    with ledger.spending() as spent:
        ledger.record_non_private("NoPrivacy")
    assert spent.spent() == (math.inf, 0.0) and spent.summary()["mechanisms"] == "NoPrivacy"


# --------------------------------------------------------------------------- the privacy maps


def test_event_privacy_maps():
    """ε = 2Δ/b for a selection; CMS Theorem 9 for objective perturbation (both calibration branches
    give back the ε they were calibrated for); Geng et al.'s δ for the truncated Laplacian."""
    assert epsilon_delta(ReportNoisyMaxDpEvent("gumbel", selection.noise_scale(0.3, 2.0), 2.0)) == (
        pytest.approx(0.3),
        0.0,
    )
    for n, regulariser in ((10_000, 1e-3), (50, 1e-3)):
        cal = objective_perturbation.erm_calibration(EPSILON, n, regulariser, 0.25)
        noise_scale = objective_perturbation.erm_noise_scale(cal.epsilon_prime)
        event = ObjectivePerturbationDpEvent(noise_scale, 0.25, n, regulariser + cal.extra_regulariser)
        assert epsilon_delta(event)[0] == pytest.approx(EPSILON, rel=1e-12)
    cal = tl.calibrate_truncated_laplace(EPSILON, 1e-6)
    epsilon, delta = epsilon_delta(TruncatedLaplaceDpEvent(float(cal.scale), float(cal.bound), 1.0))
    assert (epsilon, delta) == (pytest.approx(EPSILON), pytest.approx(1e-6, rel=1e-9))
    laplace = dp_event.LaplaceDpEvent(additive.laplace_scale(0.4, 3.0) / 3.0)
    composed = dp_event.ComposedDpEvent([dp_event.SelfComposedDpEvent(laplace, 3), dp_event.NoOpDpEvent()])
    assert epsilon_delta(composed) == (pytest.approx(1.2), 0.0)
    with pytest.raises(ValueError, match="RDP accountant"):
        epsilon_delta(dp_event.GaussianDpEvent(1.0))
    assert epsilon_delta(LibraryDpEvent("diffprivlib", 0.3, 1e-6)) == (0.3, 1e-6)
    with ledger.spending(0.2), pytest.raises(ledger.PrivacyBudgetExceeded, match="lib.fit would spend ε = 0.3"):
        ledger.record_library("lib.fit", "lib", 0.3)  # a library's reported spend is guarded too


def test_basic_composition_accountant_is_a_dp_accounting_accountant():
    accountant = BasicCompositionAccountant()
    accountant.compose(dp_event.LaplaceDpEvent(2.0), 4).compose(TruncatedLaplaceDpEvent(1.0, 10.0, 1.0))
    assert accountant.epsilon == pytest.approx(3.0) and accountant.delta > 0
    assert accountant.get_epsilon(1.0) == accountant.epsilon and accountant.get_epsilon(0.0) == math.inf
    assert accountant.get_delta(3.0 + 1e-9) == accountant.delta and accountant.get_delta(2.9) == 1.0
    assert not accountant.supports(dp_event.GaussianDpEvent(1.0))


# --------------------------------------------------------------------------- mutated scales, the guard


@pytest.mark.parametrize(
    "module, name, release",
    [
        (selection_sampling, "noise_scale", "EEM select, k draws"),
        (selection_sampling, "noise_scale", "report_noisy_max gumbel"),
        (selection_sampling, "noise_scale", "intermediate A"),
        (additive, "laplace_scale", "majority_classifier"),
        (additive, "laplace_scale", "functional mechanism"),
    ],
)
@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_a_noise_scale_off_by_two_shows_in_the_ledger(module, name, release, factor, monkeypatch):
    """A scale formula mutated by ½ or 2 changes what the draw records: 2ε or ε/2 against the statement."""
    original = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args: factor * original(*args))
    call, stated = RELEASES[release]
    with ledger.spending() as spent:
        call()
    assert float(ledger.relative_error(spent.spent()[0], stated)) == pytest.approx(abs(1 / factor - 1), rel=1e-9)


def test_the_budget_guard_refuses_before_drawing():
    generator = rng()
    with ledger.spending(1.0) as spent:
        additive.laplace_mechanism(0.0, 0.6, generator)
        state = generator.bit_generator.state
        with pytest.raises(ledger.PrivacyBudgetExceeded, match=r"laplace_mechanism would spend ε = 0\.6 .*ε = 1\.2 "):
            additive.laplace_mechanism(0.0, 0.6, generator)
    assert generator.bit_generator.state == state and len(spent.entries) == 1
    with ledger.spending(1.0), pytest.raises(ledger.PrivacyBudgetExceeded):  # the guard's slack is float error
        additive.laplace_mechanism(0.0, 1.0 + 1e-7, generator)
    with ledger.spending(1.0):
        for _ in range(1000):  # float sums of a split budget stay within it
            enhanced_exponential.select(SCORES, 1.0 / 1000, 2.0, 1, generator)


def test_records_outside_a_ledger_are_dropped_and_ledgers_nest():
    additive.laplace_mechanism(0.0, 0.5, rng())  # no ledger: nothing to record, nothing raised
    with ledger.spending() as outer:
        additive.laplace_mechanism(0.0, 0.5, rng())
        with ledger.spending() as inner:
            additive.laplace_mechanism(0.0, 0.25, rng())
    assert outer.spent()[0] == pytest.approx(0.5) and inner.spent()[0] == pytest.approx(0.25)


def test_ledger_table_judges_each_point_against_its_statement():
    import pandas as pd

    rows = pd.DataFrame(
        {
            "method": ["A", "A", "A", "B", "NoPrivacy"],
            "repetition": 0,
            "fold": [0, 1, 2, 0, 0],
            "epsilon": [0.5, 0.5, 0.5, 1.0, 1.0],
            "failure": ["", "", "ConvergenceError: x", "", ""],
            "spent_epsilon": [0.5, 0.5, 0.2, 2.0, math.inf],
            "spent_delta": 0.0,
            "draws": [3, 3, 1, 1, 0],
            "mechanisms": ["laplace_mechanism", "laplace_mechanism", "laplace_mechanism", "x", "NoPrivacy"],
        }
    )
    table = ledger.ledger_table(rows, ["method"], non_private={"method": ("NoPrivacy",)}).set_index("method")
    assert table.loc["A", "releases"] == 2 and table.loc["A", "failed_releases"] == 1
    assert table.loc["A", "ledger_error"] == 0 and table.loc["B", "ledger_error"] == 1.0
    assert table.loc["NoPrivacy", "ledger_error"] == 0 and np.isinf(table.loc["NoPrivacy", "stated_epsilon"])
    digest = ledger.ledger_digest(table.reset_index())
    assert digest == {"points": 3, "releases": 4, "failed_releases": 1, "worst_ledger_error": 1.0,
                      "mechanisms": ["NoPrivacy", "laplace_mechanism", "x"]}  # fmt: skip


def test_a_named_budget_share_is_what_a_release_states():
    """A conservative split named in the rows (``budget_share``, e.g. GUPT's code spending φε) is the
    release's statement; the same spending against the full ε is an error of 1 − φ."""
    import pandas as pd

    rows = pd.DataFrame({"method": ["GUPT"] * 2, "run": [0, 1], "epsilon": 0.6, "spent_epsilon": 0.2,
                         "spent_delta": 0.0, "draws": 1, "mechanisms": "laplace_mechanism"})  # fmt: skip
    named = ledger.ledger_table(rows.assign(budget_share=1 / 3), ["method"], release=("run",))
    assert named.ledger_error.item() == pytest.approx(0, abs=1e-15) and named.budget_share.item() == 1 / 3
    assert named.releases.item() == 2 and named.failed_releases.item() == 0
    unnamed = ledger.ledger_table(rows, ["method"], release=("run",))
    assert unnamed.ledger_error.item() == pytest.approx(2 / 3)


# --------------------------------------------------------------------------- curves: Gaussian, majority vote


def gaussian_delta(epsilon, sigma):
    """Exact δ(ε) of the Gaussian mechanism of L2 sensitivity 1 (Balle & Wang 2018, Thm 8), written out here."""
    from scipy import special

    return special.ndtr(1 / (2 * sigma) - epsilon * sigma) - math.exp(epsilon) * special.ndtr(
        -1 / (2 * sigma) - epsilon * sigma
    )


def test_a_gaussian_is_read_at_a_delta_through_rdp():
    """ε(δ) of ``N(0, σ²)`` at sensitivity 1 by dp-accounting's RDP accountant: a valid guarantee
    (the exact δ at that ε is at most δ) and within 40 % of the exact ε (RDP's conversion loss)."""
    from scipy import optimize

    for sigma, delta in ((2.0, 1e-5), (20.0, 1e-4)):
        epsilon, read_delta = epsilon_delta(dp_event.GaussianDpEvent(sigma), delta)
        exact = optimize.brentq(lambda e, s=sigma, d=delta: gaussian_delta(e, s) - d, 1e-9, 50)
        assert read_delta == delta and exact <= epsilon <= 1.4 * exact, (sigma, epsilon, exact)


def test_gnmax_records_a_gaussian_of_sensitivity_root_two_within_its_stated_guarantee():
    """One teacher moves two counts by 1: GNMax's σ is a Gaussian of noise multiplier σ/√2, one per
    query; read at δ it spends at most GNMax's data-independent (ε, δ) (spec §3)."""
    sigma, delta = 8.8, 7e-4
    with ledger.spending(release_delta=delta) as spent:
        gnmax.gnmax_aggregate(np.zeros((5, 2)), sigma, rng())
    (entry,) = spent.entries
    assert entry.event == dp_event.GaussianDpEvent(sigma / math.sqrt(2)) and entry.count == 5
    calibration = rdp.gnmax_noise_scale(0.6244, delta)
    with ledger.spending(release_delta=delta) as calibrated:
        gnmax.gnmax_aggregate(np.zeros((1, 2)), calibration.sigma, rng())
    assert calibrated.spent()[0] <= 0.6244


def test_a_majority_vote_is_read_by_the_exact_verifier():
    """The plain majority of K = 11 ε-DP voters is exactly ⌈K/2⌉ε = 6ε-DP (spec §1.2); γ_Sub of m
    polled voters spends at most mε at δ = mΔ (composition); a majority vote has no (ε, δ) without a δ."""
    plain = MajorityVoteDpEvent(tuple(mj.gamma_majority(11)), 0.5, 0.0)
    assert epsilon_delta(plain, 0.0) == (pytest.approx(3.0, abs=1e-11), 0.0)
    for m in (1, 3, 7):
        event = MajorityVoteDpEvent(tuple(mj.gamma_subsampling(11, m)), 0.5, 1e-4)
        assert epsilon_delta(event, m * 1e-4)[0] <= m * 0.5
    with pytest.raises(ValueError, match="read it at a δ"):
        epsilon_delta(plain)
    with ledger.spending(release_delta=0.0) as spent:
        mj.sample_darrm(np.ones((3, 11)), mj.gamma_majority(11), rng(), voter_epsilon=0.5)
        mj.subsample_majority(np.ones((2, 11)), 3, rng(), voter_epsilon=0.5)
    assert [(entry.mechanism, entry.count) for entry in spent.entries] == [
        ("sample_darrm", 3),
        ("subsample_majority", 2),
    ]
    assert spent.entries[0].epsilon == pytest.approx(3.0, abs=1e-11) and spent.entries[1].epsilon <= 1.5


def test_events_are_plain_data_and_the_accounting_layer_holds_their_maps():
    """Each event class of ``releases.events`` holds its parameters and nothing else (frozen, no method of its
    own): its privacy map is found in ``accounting.events.PRIVACY_MAPS`` by its class, as dp-accounting's are."""
    own = [
        kind
        for kind in vars(releases_events).values()
        if isinstance(kind, type) and kind.__module__ == releases_events.__name__
    ]
    assert {kind.__name__ for kind in own} == {
        "ReportNoisyMaxDpEvent",
        "ObjectivePerturbationDpEvent",
        "TruncatedLaplaceDpEvent",
        "MajorityVoteDpEvent",
        "LibraryDpEvent",
    }
    for kind in own:
        assert issubclass(kind, dp_event.DpEvent) and kind in PRIVACY_MAPS, kind.__name__
        assert [name for name, value in vars(kind).items() if callable(value) and not name.startswith("__")] == []
        fields = [field.name for field in attr.fields(kind)]
        with pytest.raises(attr.exceptions.FrozenInstanceError):
            setattr(kind(*[1.0] * len(fields)), fields[0], 2.0)
    assert privacy_map(dp_event.GaussianDpEvent(1.0)) is PRIVACY_MAPS[dp_event.GaussianDpEvent]
    with pytest.raises(NoEpsilonDelta, match="PoissonSampledDpEvent has no"):
        privacy_map(dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0)))


def test_advanced_composition_accountant_is_the_drv_bound():
    """k releases at most (ε, δ) each: (√(2k log(1/δ'))ε + kε(e^ε − 1), kδ + δ'), written out here;
    a mix is bounded by its largest ε and δ; a curve needs its δ."""
    k, epsilon, delta_prime = 50, 0.1, 1e-5
    accountant = AdvancedCompositionAccountant(delta_prime).compose(dp_event.LaplaceDpEvent(1 / epsilon), k)
    assert accountant.epsilon == pytest.approx(
        math.sqrt(2 * k * math.log(1 / delta_prime)) * epsilon + k * epsilon * math.expm1(epsilon), rel=1e-12
    )
    assert accountant.delta == pytest.approx(delta_prime, rel=1e-12)
    accountant.compose(TruncatedLaplaceDpEvent(5.0, 40.0, 1.0))  # ε = 0.2 and a δ: the bound of 51 of those
    _, delta = epsilon_delta(TruncatedLaplaceDpEvent(5.0, 40.0, 1.0))
    assert accountant.epsilon == pytest.approx(
        math.sqrt(2 * 51 * math.log(1 / delta_prime)) * 0.2 + 51 * 0.2 * math.expm1(0.2), rel=1e-12
    )
    assert accountant.delta == pytest.approx(51 * delta + delta_prime, rel=1e-12)
    assert not AdvancedCompositionAccountant(delta_prime).supports(dp_event.GaussianDpEvent(1.0))
    assert AdvancedCompositionAccountant(delta_prime, release_delta=1e-6).supports(dp_event.GaussianDpEvent(1.0))


def test_an_advanced_composition_ledger_guards_its_total():
    """A query-set ledger composes its Q labels by advanced composition and refuses a label past its total."""
    with ledger.spending(budget_epsilon=1.0, release_delta=1e-4, delta_prime=1e-5) as spent:
        mj.sample_darrm(np.ones((4, 5)), mj.gamma_subsampling(5, 1), rng(), voter_epsilon=0.05, voter_delta=1e-4)
        epsilon, delta = spent.spent()
        with pytest.raises(ledger.PrivacyBudgetExceeded, match="sample_darrm would spend"):
            mj.sample_darrm(np.ones((400, 5)), mj.gamma_subsampling(5, 1), rng(), voter_epsilon=0.05, voter_delta=1e-4)
    per_label = spent.entries[0].epsilon
    assert per_label <= 0.05 and delta == pytest.approx(4 * 1e-4 + 1e-5)
    assert epsilon == pytest.approx(math.sqrt(8 * math.log(1e5)) * per_label + 4 * per_label * math.expm1(per_label))


def test_a_bound_promise_counts_only_overspending():
    """``promise="at most"``: underspending is reported as ``spent_share``, not an error; overspending is."""
    import pandas as pd

    rows = pd.DataFrame({"point": ["a", "a", "b"], "draw": [0, 1, 0], "epsilon": 2.0, "spent_epsilon": [1.0, 2.0, 2.2],
                         "spent_delta": 0.0, "draws": 1, "mechanisms": "m"})  # fmt: skip
    table = ledger.ledger_table(rows, ["point"], release=("draw",), promise="at most").set_index("point")
    assert table.loc["a", "ledger_error"] == 0 and table.loc["a", "spent_share"] == 1.0
    assert table.loc["b", "ledger_error"] == pytest.approx(0.1) and table.loc["b", "spent_share"] == pytest.approx(1.1)
    exact = ledger.ledger_table(rows, ["point"], release=("draw",)).set_index("point")
    assert exact.loc["a", "ledger_error"] == 0.5 and "spent_share" not in exact
    with pytest.raises(ValueError, match="promise"):
        ledger.ledger_table(rows, ["point"], release=("draw",), promise="about")
