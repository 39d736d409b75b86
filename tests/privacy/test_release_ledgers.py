"""The privacy ledger at the call sites: every job behind Figs 2–7 records, per (fold, ε) release,
the ε its point states, and a call site that hands its releaser 2ε is stopped by the budget guard
(and, with the guard lifted, shows in the ledger).

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
