"""Release audits at the call sites: the jobs behind the figures hand each releaser the grid's ε
and the sensitivity of the data it actually releases on.

A unit test of a releaser cannot see a job that passes it the wrong ε, the test fold's size for the
training fold's, or the wrong C or range. Here every job runs on tiny data while every random
stream it builds is a recording generator (:class:`StreamSpy`), so the scale of each noise draw of
each (fold, ε) is compared with the paper's formula evaluated on that fold (its ``n_train`` from
the job's own table), and every PrivGene run is audited round by round (:class:`PrivGeneAudit`).
DaRRM's private prediction is audited at its three aggregators, and the truncated Laplacian
experiment at its release function. Each audit has a negative control: the same job with a call
site that hands its releaser 2ε fails it.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np
import pytest
from release_audit import (
    GOF_SAMPLES,
    P_FLOOR,
    PrivGeneAudit,
    RecordingGenerator,
    fails,
    truncated_laplace_cdf,
    unit_rows,
)
from scipy import special, stats

from dpreplication import seeding
from dpreplication.accounting import ledger
from dpreplication.data.tabular import TabularData
from dpreplication.mechanisms import gnmax
from dpreplication.mechanisms import majority as mj
from dpreplication.mechanisms import truncated_laplace as tl_mechanism
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.darrm import prediction as dp
from dpreplication.replications.privgene import comparison as pc
from dpreplication.replications.privgene import jobs
from dpreplication.replications.privgene import methods as pg
from dpreplication.replications.truncated_laplace import audits as tl

GRID = [0.1, 0.5, 2.0]
FOLDS, USE_FOLDS = 3, [0, 2]
ALGORITHM = {**profile_config("default", Path(__file__).resolve().parents[2])["privgene"]["algorithm"], "m": 20,
             "c": 0.02, "svm_C": 4.0, "constant_classifiers": 2}  # fmt: skip
"""The default profile's PrivGene section, with c large enough that r ≥ 2 on the tiny folds and a C ≠ 10."""
SETTINGS = {
    "PrivGene": {"algorithm": ALGORITHM},
    "PrivateERM": {"svm_C": 4.0},
    "FM": {},
    "PrivateSVM": {"svm_C": 4.0},
    "GUPT": {"gupt_eps_fraction": 0.5, "svm_C": 4.0},
    "Majority": {},
}
"""Keyword arguments of each comparison job: non-default C and φ, so their wiring is audited too."""
NOISE_DRAWS = ("laplace", "gamma", "normal", "exponential", "gumbel")


def toy_data(n=300, d=3, seed=18) -> TabularData:
    X, y = unit_rows(n, d, seed)
    return TabularData(name="toy", features=X, labels=y, columns=tuple("abcdef"[:d]), source="test")


class StreamSpy:
    """Every stream built by ``seeding.generator`` becomes a :class:`RecordingGenerator`, kept with its keys."""

    def __init__(self, monkeypatch):
        self.streams: list[tuple[tuple, RecordingGenerator]] = []
        original = seeding.generator

        def generator(*keys):
            rng = RecordingGenerator(original(*keys))
            self.streams.append((keys, rng))
            return rng

        monkeypatch.setattr(seeding, "generator", generator)

    def noise(self, *tail) -> list[tuple[str, tuple, dict]]:
        """The noise draws of the one stream whose keys end with ``tail``."""
        (rng,) = [rng for keys, rng in self.streams if keys[-len(tail) :] == tail]
        return [call for call in rng.calls if call[0] in NOISE_DRAWS]


def expected_noise(task: str, method: str, n: int, d: int, epsilon: float) -> list[tuple[str, dict]]:
    """The noise draws of one release, from each paper's formula (``d`` counts the bias)."""
    C = SETTINGS[method].get("svm_C", 10.0)
    if method == "PrivateERM":  # CMS 2011 Alg. 2: ε' = ε − 2 log(1 + c/(nΛ)), else ε/2; ‖b‖ ~ Γ(d, 2/ε')
        c, regulariser = (0.25, 1e-12) if task == "lr" else (1.0 / (2 * 0.5), 1.0 / (C * n))
        epsilon_prime = epsilon - 2.0 * math.log1p(c / (n * regulariser))
        epsilon_prime = epsilon_prime if epsilon_prime > 0 else epsilon / 2
        return [("gamma", {"shape": d, "scale": 2.0 / epsilon_prime})]
    if method == "FM":  # Zhang et al. 2012: Δ = d²/4 + 3d on (M, b), one draw for the d² + d coefficients
        return [("laplace", {"scale": (d * d / 4 + 3 * d) / epsilon})]
    if method == "PrivateSVM":  # Rubinstein et al.: λ = 4·L·C·κ·√d/(nε)
        return [("laplace", {"scale": 4.0 * C * math.sqrt(d) / (n * epsilon)})]
    if method == "GUPT":  # p·(hi − lo)/(ℓ·φ·ε), ℓ = ⌊n^0.4⌋, linear range [−5, 5]
        blocks, phi = math.floor(n**0.4), SETTINGS["GUPT"]["gupt_eps_fraction"]
        return [("laplace", {"scale": d * 10.0 / (blocks * phi * epsilon)})]
    if method == "Majority":  # a count: sensitivity 1
        return [("laplace", {"scale": 1.0 / epsilon})]
    raise ValueError(method)


def drawn(calls) -> list[tuple[str, dict]]:
    """``(name, {parameter: value})`` of recorded draws, positional arguments named as numpy does."""
    names = {"laplace": ("loc", "scale"), "gamma": ("shape", "scale"), "normal": ("loc", "scale")}
    out = []
    for name, args, kwargs in calls:
        values = {**dict(zip(names.get(name, ()), args)), **kwargs}
        out.append((name, {key: float(values[key]) for key in ("shape", "scale") if key in values}))
    return out


def assert_noise(observed, expected, where) -> None:
    assert [name for name, _ in observed] == [name for name, _ in expected], (where, observed, expected)
    for (_, got), (_, want) in zip(observed, expected):
        assert got == pytest.approx(want, rel=1e-12), (where, got, want)


# --------------------------------------------------------------------------- Figs 3–4: the baselines

BASELINES = [("lr", m) for m in ("PrivateERM", "FM", "GUPT", "Majority")] + [
    ("svm", m) for m in ("PrivateERM", "PrivateSVM", "GUPT", "Majority")
]
RELEASERS = {
    "PrivateERM": ("dpreplication.learning.objective_perturbation", "fit_private_erm", 2),
    "FM": ("dpreplication.learning.functional_mechanism", "fit_functional_mechanism", 2),
    "PrivateSVM": ("dpreplication.learning.output_perturbation", "privatise_svm_weights", 2),
    "GUPT": ("dpreplication.learning.sample_and_aggregate", "gupt_aggregate", 2),
    "Majority": ("dpreplication.learning.models", "majority_classifier", 1),
}
"""method -> (module, releasing function, position of its ε argument): where a call-site bug is injected."""


def check_comparison_baseline(task, method, monkeypatch):
    spy = StreamSpy(monkeypatch)
    data = toy_data()
    job = jobs.comparison(task, method, epsilons=GRID, folds=FOLDS, use_folds=USE_FOLDS, **SETTINGS[method])
    frame = jobs.run_job(data, job, 0, seed=1)
    assert frame.failure.eq("").all() and sorted(frame.epsilon) == sorted(GRID * len(USE_FOLDS))
    d = data.features.shape[1] + 1
    for row in frame.itertuples():
        observed = drawn(spy.noise(row.fold, row.epsilon))
        assert_noise(
            observed, expected_noise(task, method, row.n_train, d, row.epsilon), (method, row.fold, row.epsilon)
        )


@pytest.mark.parametrize("task, method", BASELINES)
def test_comparison_jobs_release_with_the_grid_epsilon_and_the_folds_sensitivity(task, method, monkeypatch):
    """Every (fold, ε) of a Figs 3–4 job draws its noise once, at the scale of the paper's formula
    for that ε and that training fold."""
    check_comparison_baseline(task, method, monkeypatch)


def without_budget_guard(monkeypatch):
    """Let a release overspend its ledger's budget, so that a negative control shows what the audit
    alone catches (the guard would stop the job first: :func:`test_ledgers_catch_a_doubled_epsilon`)."""
    monkeypatch.setattr(ledger, "RELATIVE_TOLERANCE", math.inf)


def doubled_epsilon(monkeypatch, method, guard: bool = False):
    """A call-site bug: the releaser of ``method`` receives 2ε (``guard``: the ledger's budget guard stays on)."""
    if not guard:
        without_budget_guard(monkeypatch)
    module_name, name, position = RELEASERS[method]
    module = importlib.import_module(module_name)
    original = getattr(module, name)

    def releaser(*args, **kwargs):
        args = list(args)
        args[position] = 2 * args[position]
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, releaser)


@pytest.mark.parametrize("task, method", BASELINES)
def test_comparison_baseline_negative_control(task, method, monkeypatch):
    doubled_epsilon(monkeypatch, method)
    assert fails(check_comparison_baseline, task, method, monkeypatch)


def test_reference_majority_job_releases_with_its_epsilon(monkeypatch):
    """The Majority reference job (:func:`~dpreplication.replications.privgene.jobs.reference`) behind Figs 2 and 6–7."""
    spy = StreamSpy(monkeypatch)
    job = jobs.reference("lr", "Majority", epsilon=0.5, folds=FOLDS, use_folds=USE_FOLDS)
    frame = jobs.run_job(toy_data(), job, 0, seed=1)
    for row in frame.itertuples():
        assert_noise(drawn(spy.noise(0.5, 0, row.fold)), expected_noise("lr", "Majority", 0, 0, 0.5), row.fold)


# --------------------------------------------------------------------------- PrivGene at every call site


def privgene_audit(monkeypatch) -> PrivGeneAudit:
    return PrivGeneAudit(monkeypatch, modules=(pg,))


def assert_privgene_runs(audit: PrivGeneAudit, epsilons, frame=None) -> None:
    """The runs received exactly ``epsilons`` and each passes the round-by-round audit; the job's
    ``r`` column is the number of rounds run."""
    assert sorted(run["epsilon"] for run in audit.runs) == pytest.approx(sorted(epsilons)), "ε handed to PrivGene"
    for run in audit.runs:
        PrivGeneAudit.check(run)
    if frame is not None and "r" in frame:
        assert sorted(frame.r) == sorted(len(run["rounds"]) for run in audit.runs)
    assert max(len(run["rounds"]) for run in audit.runs) >= 2


def doubled_privgene(monkeypatch):
    """A call-site bug: PrivGene receives 2ε from the job (the spy still records what it receives)."""
    without_budget_guard(monkeypatch)
    for module in (pg,):

        def doubled(fitness, epsilon, settings, rng, n_iterations=None, spy=module.privgene):
            return spy(fitness, 2 * epsilon, settings, rng, n_iterations)

        monkeypatch.setattr(module, "privgene", doubled)


def run_privgene_job(job: str):
    """``(frame, the ε each PrivGene run must receive)`` of one PrivGene job on tiny data."""
    data, keys = toy_data(), {"folds": FOLDS, "use_folds": USE_FOLDS}
    if job in ("comparison lr", "comparison svm"):
        spec = jobs.comparison(job.split()[1], "PrivGene", epsilons=GRID, **keys, **SETTINGS["PrivGene"])
        return jobs.run_job(data, spec, 0, seed=1), GRID * len(USE_FOLDS)
    if job == "paper r":
        settings = {"folds": FOLDS, "use_folds": USE_FOLDS, "algorithm": ALGORITHM}
        frame = pc.paper_r_comparison_job(
            data,
            "lr",
            0,
            seed=1,
            epsilons=[0.5],
            paper_training_rows=2_000,
            privgene=settings,
            privateerm={"folds": FOLDS, "use_folds": USE_FOLDS},
            fm={"folds": FOLDS, "use_folds": USE_FOLDS},
        )
        return frame[~frame.method.isin(["PrivateERM", "FM"])], [0.5] * 2 * len(USE_FOLDS)
    if job == "kmeans":
        points = toy_data(400, 2, 19)
        points = TabularData(name="toy", features=points.features / 2, labels=None, columns=("a", "b"), source="test")
        return jobs.run_job(points, jobs.kmeans(2, "PrivGene", epsilons=GRID, algorithm=ALGORITHM), 0, seed=1), GRID
    if job == "choice of c":
        spec = jobs.choice_of_c("svm", 0.05, epsilon=0.5, algorithm=ALGORITHM, **keys)
        return jobs.run_job(data, spec, 0, seed=1), [0.5] * len(USE_FOLDS)
    variant = job.split()[-1]
    frame = jobs.run_job(data, jobs.eem_vs_em("lr", variant, epsilon=2.0, algorithm=ALGORITHM, **keys), 0, seed=1)
    return frame.drop_duplicates("fold"), [2.0] * len(USE_FOLDS)


PRIVGENE_JOBS = ["comparison lr", "comparison svm", "paper r", "kmeans", "choice of c"] + [
    f"eem vs em {variant}" for variant in pg.VARIANTS
]


@pytest.mark.parametrize("job", PRIVGENE_JOBS)
def test_privgene_jobs_spend_the_grid_epsilon(job, monkeypatch):
    """Figs 2–7 and the paper-r ablation: PrivGene receives each (fold, ε) of the job once, and each
    run splits exactly that ε over its rounds and draws (k-means: EM with m' = 10)."""
    audit = privgene_audit(monkeypatch)
    frame, epsilons = run_privgene_job(job)
    assert_privgene_runs(audit, epsilons, frame)


@pytest.mark.parametrize("job", ["comparison lr", "kmeans", "eem vs em EM"])
def test_privgene_jobs_negative_control(job, monkeypatch):
    audit = privgene_audit(monkeypatch)
    doubled_privgene(monkeypatch)
    frame, epsilons = run_privgene_job(job)
    assert fails(assert_privgene_runs, audit, epsilons, frame)


# --------------------------------------------------------------------------- Fig. 5: GUPT k-means


def check_kmeans_gupt(monkeypatch, k=2):
    spy = StreamSpy(monkeypatch)
    points = toy_data(400, 2, 19).features / 2
    data = TabularData(name="toy", features=points, labels=None, columns=("a", "b"), source="test")
    phi = 0.5
    job = jobs.kmeans(k, "GUPT", epsilons=GRID, gupt_eps_fraction=phi, restarts=2, max_iter=50)
    frame = jobs.run_job(data, job, 0, seed=1)
    blocks = math.floor(len(points) ** 0.4)
    for epsilon in frame.epsilon:  # p = k·dim outputs in [−1, 1]: scale p·2/(ℓ·φ·ε)
        scale = k * points.shape[1] * 2.0 / (blocks * phi * epsilon)
        assert_noise(drawn(spy.noise(epsilon)), [("laplace", {"scale": scale})], epsilon)


def test_kmeans_gupt_releases_centres_with_the_grid_epsilon(monkeypatch):
    check_kmeans_gupt(monkeypatch)


def test_kmeans_gupt_negative_control(monkeypatch):
    doubled_epsilon(monkeypatch, "GUPT")
    assert fails(check_kmeans_gupt, monkeypatch)


# --------------------------------------------------------------------------- DaRRM private prediction

PREDICTION = {
    "datasets": {"mnist": {"epsilon_teacher": 0.0892}},
    "classes": [5, 8],
    "teachers": 11,
    "Delta": 1e-4,
    "ms": [1, 3, 7],
    "queries": [50],
    "draws": 2,
    "mean_probability": 0.75,
    "delta_prime": 1e-4,
    "gnmax_max_order": 500,
}


def gaussian_delta(epsilon, sigma, sensitivity):
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm 8), written out here."""
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return special.ndtr(a - b) - math.exp(epsilon) * special.ndtr(-a - b)


def gnmax_rdp_epsilon(sigma, delta, epsilon_guess):
    """GNMax's data-independent guarantee ``min_λ λ/σ² + log(1/δ)/(λ − 1)`` over the authors'
    orders ``λ = log(1/δ)/ε + 4 + j < 500`` (spec §3)."""
    orders = np.arange(math.log(1 / delta) / epsilon_guess + 4, 500)
    return float(np.min(orders / sigma**2 + math.log(1 / delta) / (orders - 1)))


def check_private_prediction(monkeypatch):
    """Per (m, draw): GNMax adds noise whose σ is (mε, mΔ)-DP for L2 sensitivity √2 and no larger
    than needed (its RDP guarantee is exactly mε); subsampling polls exactly m teachers; DaRRM
    releases with γ_opt of the LP at (mε, mΔ), which the exact verifier accepts; both majority
    votes are told (for their ledger) that each teacher is (ε, Δ)-DP."""
    from dpreplication.accounting.privacy_verifier import verify_privacy

    seen, seen_voters = {"gnmax": [], "sub": [], "opt": []}, []
    for module, name, key in (
        (gnmax, "gnmax_aggregate", "gnmax"),
        (mj, "subsample_majority", "sub"),
        (mj, "sample_darrm", "opt"),
    ):
        original = getattr(module, name)
        monkeypatch.setattr(
            module,
            name,
            lambda votes, parameter, rng, original=original, key=key, **voters: (
                seen[key].append(parameter),
                voters and seen_voters.append(voters),
                original(votes, parameter, rng, **voters),
            )[-1],
        )
    rng = np.random.default_rng(8)
    truth = np.where(rng.random(600) < 0.5, 5, 8)
    votes = np.where(rng.random((11, truth.size)) < 0.8, truth, 13 - truth)
    arrays = {"labels": truth, "test_index": np.arange(truth.size)}
    cached = {"mnist": {"private": {**arrays, "votes": votes}, "nonprivate": {**arrays, "votes": votes}}}
    dp.accuracy_table(cached, {}, PREDICTION, seed=1, solver="highs")
    epsilon, Delta, draws = 0.0892, 1e-4, PREDICTION["draws"]
    ms = [m for m in PREDICTION["ms"] for _ in range(draws)]
    assert seen["sub"] == ms and len(seen["gnmax"]) == len(seen["opt"]) == len(ms)
    assert seen_voters == [{"voter_epsilon": epsilon, "voter_delta": Delta}] * (2 * len(ms))
    for m, sigma, gamma in zip(ms, seen["gnmax"], seen["opt"]):
        assert gaussian_delta(m * epsilon, sigma, math.sqrt(2)) <= m * Delta, (m, sigma)
        assert gnmax_rdp_epsilon(sigma, m * Delta, m * epsilon) == pytest.approx(m * epsilon, rel=1e-9), (m, sigma)
        np.testing.assert_array_equal(gamma, dp.gamma_opt(PREDICTION, "mnist", m, "highs"))
        assert verify_privacy(gamma, 11, m, epsilon, Delta, m * Delta).is_private, m


def test_private_prediction_releases_with_the_per_query_budget(monkeypatch):
    check_private_prediction(monkeypatch)


def test_private_prediction_negative_control(monkeypatch):
    """The aggregators calibrated to half the per-query ε fail the check; to twice it, the query
    set's ledger refuses the first draw (its budget is the teachers' mε, not the caller's)."""
    original = dp.query_budget
    monkeypatch.setattr(dp, "query_budget", lambda *args: (0.5 * original(*args)[0], original(*args)[1]))
    assert fails(check_private_prediction, monkeypatch)
    monkeypatch.setattr(dp, "query_budget", lambda *args: (2.0 * original(*args)[0], original(*args)[1]))
    with pytest.raises(ledger.PrivacyBudgetExceeded, match="gnmax_aggregate would spend"):
        check_private_prediction(monkeypatch)


# --------------------------------------------------------------------------- truncated Laplacian (E3)


def check_truncated_laplace_moments(monkeypatch, points=((0.5, 1e-3), (2.0, 1e-6))):
    """E3's draws come from the release function itself, once per point at its (ε, δ), and have the
    truncated Laplacian law of that (ε, δ) (Geng et al. Def. 3, written out in release_audit)."""
    seen, original = [], tl_mechanism.truncated_laplace_mechanism

    def release(value, epsilon, delta, rng, sensitivity=1.0):
        samples = original(value, epsilon, delta, rng, sensitivity)
        seen.append((epsilon, delta, sensitivity, samples))
        return samples

    monkeypatch.setattr(tl_mechanism, "truncated_laplace_mechanism", release)
    tl.monte_carlo_moments(
        np.random.default_rng(0), points=points, n_samples=GOF_SAMPLES, library_points=(), library_samples=1
    )
    assert [call[:3] for call in seen] == [(epsilon, delta, 1.0) for epsilon, delta in points]
    for epsilon, delta, _, samples in seen:
        _, bound = truncated_laplace_cdf(0.0, epsilon, delta, 1.0)
        assert np.abs(samples).max() <= bound
        p_value = stats.kstest(samples, lambda x: truncated_laplace_cdf(x, epsilon, delta, 1.0)[0]).pvalue
        assert p_value >= P_FLOOR, (epsilon, delta, p_value)


def test_truncated_laplace_experiment_samples_through_the_release_function(monkeypatch):
    check_truncated_laplace_moments(monkeypatch)


def test_truncated_laplace_experiment_negative_control(monkeypatch):
    original = tl_mechanism.truncated_laplace_mechanism
    monkeypatch.setattr(
        tl_mechanism, "truncated_laplace_mechanism", lambda value, epsilon, *rest: original(value, 2 * epsilon, *rest)
    )
    assert fails(check_truncated_laplace_moments, monkeypatch)
