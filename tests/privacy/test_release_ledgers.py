"""The privacy ledger at the call sites: every job behind Figs 2–7 records, per (fold, ε) release,
the ε its point states, and a call site that hands its releaser 2ε is stopped by the budget guard
(and, with the guard lifted, shows in the ledger). DaRRM's query sets spend at most their stated
(mε, mΔ) per label, and an aggregator drawing less noise is refused.

The jobs run on the tiny data of :mod:`test_release_call_sites`, whose audits check the noise
itself; here the check is what the draws recorded (:mod:`dpreplication.accounting.ledger`).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_release_call_sites import (
    BASELINES,
    FOLDS,
    GRID,
    PREDICTION,
    PRIVGENE_JOBS,
    RELEASERS,
    SETTINGS,
    USE_FOLDS,
    doubled_epsilon,
    run_privgene_job,
    toy_data,
    without_budget_guard,
)

from dpreplication.accounting import ledger
from dpreplication.mechanisms import gnmax
from dpreplication.mechanisms import majority as mj
from dpreplication.replications.darrm import prediction as dp
from dpreplication.replications.privgene import jobs
from dpreplication.replications.privgene import methods as pg

LEDGER_JOBS = [*(f"comparison {task} {method}" for task, method in BASELINES), *PRIVGENE_JOBS, "reference Majority"]
"""Every job kind behind Figs 2–7: the baselines, PrivGene's jobs and the Majority reference."""


def ledger_job(job: str):
    """``(frame, the ε share each release states)`` of one job on tiny data (GUPT states its φ = ½)."""
    if job.startswith("comparison") and job.split()[-1] in RELEASERS:
        _, task, method = job.split()
        spec = jobs.comparison(task, method, epsilons=GRID, folds=FOLDS, use_folds=USE_FOLDS, **SETTINGS[method])
        return jobs.run_job(toy_data(), spec, 0, seed=1), SETTINGS[method].get("gupt_eps_fraction", 1.0)
    if job == "reference Majority":
        spec = jobs.reference("lr", "Majority", epsilon=0.5, folds=FOLDS, use_folds=USE_FOLDS)
        return jobs.run_job(toy_data(), spec, 0, seed=1), 1.0
    return run_privgene_job(job)[0], 1.0


@pytest.mark.parametrize("job", LEDGER_JOBS)
def test_every_release_of_a_job_records_the_epsilon_it_states(job):
    """Each (fold, ε) row's ledger composes to its ε (GUPT: φε, the split it names) to 1e-9, from the
    mechanisms the method draws with."""
    frame, share = ledger_job(job)
    releases = frame.drop_duplicates(["method", "fold", "epsilon"])
    assert len(releases) and releases.failure.eq("").all()
    np.testing.assert_allclose(releases.spent_epsilon, share * releases.epsilon, rtol=1e-9, atol=0)
    assert (releases.spent_delta == 0).all() and (releases.draws >= 1).all()
    table = ledger.ledger_table(frame, ["dataset", "task", "method"], non_private={"method": pg.EPSILON_FREE})
    assert table.releases.sum() == len(releases) and table.failed_releases.eq(0).all()
    assert table.ledger_error.max() <= 1e-9 or share != 1.0


def test_noprivacy_releases_record_no_privacy():
    """NoPrivacy's ledger says ε = ∞ (a non-private release), which its point states."""
    spec = jobs.reference("lr", "NoPrivacy", epsilon=0.5, folds=FOLDS, use_folds=USE_FOLDS)
    frame = jobs.run_job(toy_data(), spec, 0, seed=1)
    assert np.isinf(frame.spent_epsilon).all() and frame.mechanisms.eq("NoPrivacy").all()
    table = ledger.ledger_table(frame, ["dataset", "task", "method"], non_private={"method": pg.EPSILON_FREE})
    assert table.ledger_error.eq(0).all()
    stated_private = ledger.ledger_table(frame, ["dataset", "task", "method"])  # as if it promised ε
    assert np.isinf(stated_private.ledger_error).all()


@pytest.mark.parametrize("method", ["PrivateERM", "FM", "Majority"])
def test_ledgers_catch_a_doubled_epsilon(method, monkeypatch):
    """A call site that hands its releaser 2ε: the budget guard stops the job, naming the mechanism;
    without the guard the ledger shows the point spending 2ε (error 1)."""
    spec = jobs.comparison("lr", method, epsilons=GRID, folds=FOLDS, use_folds=USE_FOLDS, **SETTINGS[method])
    doubled_epsilon(monkeypatch, method, guard=True)
    with pytest.raises(ledger.PrivacyBudgetExceeded, match=r"would spend ε = 0\.2 .* budget ε = 0\.1"):
        jobs.run_job(toy_data(), spec, 0, seed=1)
    without_budget_guard(monkeypatch)
    table = ledger.ledger_table(jobs.run_job(toy_data(), spec, 0, seed=1), ["dataset", "task", "method"])
    np.testing.assert_allclose(table.ledger_error, 1.0, rtol=1e-9)


# --------------------------------------------------------------------------- DaRRM query sets


def prediction_votes():
    rng = np.random.default_rng(8)
    truth = np.where(rng.random(600) < 0.5, 5, 8)
    votes = np.where(rng.random((11, truth.size)) < 0.8, truth, 13 - truth)
    arrays = {"labels": truth, "test_index": np.arange(truth.size)}
    return {"mnist": {"private": {**arrays, "votes": votes}, "nonprivate": {**arrays, "votes": votes}}}


def test_every_query_set_spends_at_most_its_stated_budget():
    """Each (m, draw, aggregator) query set is one ledger: Q labels of one mechanism, each read at
    δ = mΔ, composed by advanced composition; none spends more than the stated total, GNMax spends
    what its σ gives through RDP at sensitivity √2, the majority votes at most mε per label."""
    _, releases = dp.accuracy_table(prediction_votes(), {}, PREDICTION, seed=1, solver="highs")
    queries, draws = PREDICTION["queries"][0], PREDICTION["draws"]
    assert len(releases) == len(PREDICTION["ms"]) * draws * len(dp.METHODS) and (releases.draws == queries).all()
    expected = {"gnmax": "gnmax_aggregate", "sub": "subsample_majority", "opt": "sample_darrm"}
    assert (releases.mechanisms == releases.method.map(expected)).all()
    assert (releases.spent_epsilon_query <= releases.epsilon_query * (1 + 1e-12)).all()
    table = dp.query_ledger_table(releases)
    assert table.ledger_error.max() <= 1e-9 and (table.releases == draws).all()
    assert (table.spent_share <= 1 + 1e-9).all() and table.conservative.notna().all()
    for m in PREDICTION["ms"]:
        sigma = gnmax_sigma(m)
        read, _ = ledger_epsilon_delta(sigma, m)
        spent = releases.loc[(releases.m == m) & (releases.method == "gnmax"), "spent_epsilon_query"]
        np.testing.assert_allclose(spent, read, rtol=1e-12)


def gnmax_sigma(m):
    from dpreplication.accounting import rdp

    epsilon, delta = m * PREDICTION["datasets"]["mnist"]["epsilon_teacher"], m * PREDICTION["Delta"]
    return rdp.gnmax_noise_scale(epsilon, delta, PREDICTION["gnmax_max_order"]).sigma


def ledger_epsilon_delta(sigma, m):
    from dp_accounting import dp_event

    from dpreplication.accounting.events import epsilon_delta

    return epsilon_delta(dp_event.GaussianDpEvent(sigma / np.sqrt(2)), m * PREDICTION["Delta"])


def halved_sigma(monkeypatch):
    original = gnmax.gnmax_aggregate
    monkeypatch.setattr(gnmax, "gnmax_aggregate", lambda counts, sigma, rng: original(counts, sigma / 2, rng))


def doubled_gamma(monkeypatch):
    original = mj.sample_darrm
    monkeypatch.setattr(
        mj, "sample_darrm", lambda votes, gamma, rng, **voters: original(votes, np.minimum(2 * gamma, 1), rng, **voters)
    )


def more_teachers(monkeypatch):
    original = mj.subsample_majority
    monkeypatch.setattr(
        mj, "subsample_majority", lambda votes, m, rng, **voters: original(votes, min(2 * m + 1, 11), rng, **voters)
    )


@pytest.mark.parametrize(
    "mutant, mechanism",
    [(halved_sigma, "gnmax_aggregate"), (doubled_gamma, "sample_darrm"), (more_teachers, "subsample_majority")],
)
def test_an_aggregator_drawing_less_noise_is_refused(mutant, mechanism, monkeypatch):
    """GNMax with σ/2, DaRRM with 2γ, subsampling polling 2m + 1 teachers: the query set's ledger
    refuses the labels before they are drawn, naming the aggregator. Polling 2m would not be: an
    even poll with a fair tie-break has the law of a poll of 2m − 1, and the exact verifier finds
    the majority of 5 of 11 teachers private at 2.81ε ≤ 3ε (the composition bound mε is loose);
    2m + 1 = 3 at m = 1 spends 1.97ε."""
    mutant(monkeypatch)
    with pytest.raises(ledger.PrivacyBudgetExceeded, match=f"{mechanism} would spend"):
        dp.accuracy_table(prediction_votes(), {}, PREDICTION, seed=1, solver="highs")
