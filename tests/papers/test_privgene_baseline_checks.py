"""PrivateERM cross-checked (issue #32 item 8, spec §3.4): the mapping to diffprivlib's
LogisticRegression, the jobs' determinism and the published table's interval columns.

Synthetic, seeded data only. Oracle: diffprivlib 0.6.6 (extra ``oracles``)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpreplication.data.tabular import TabularData
from dpreplication.learning import objective_perturbation as erm
from dpreplication.replications.privgene import baseline_checks as checks
from dpreplication.replications.privgene import jobs as privgene_jobs
from dpreplication.scorecard import evaluate_claims, load_registry

REPO = Path(__file__).resolve().parents[2]
C_LOGISTIC = 0.25
SETTINGS = {
    "epsilons": [0.05, 0.1],
    "regulariser": 1e-12,
    "sweep_epsilon": 1.0,
    "sweep_regularisers": [1e-12, 1e-4, 1e-2],
    "folds": 5,
    "use_folds": [0, 1],
}


def synthetic(n, d, seed):
    """Features uniform on [-1,1]^{d-1}, labels from a noisy linear rule: (X, y01, y_pm)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, d - 1))
    y01 = (X @ rng.normal(size=d - 1) + 0.3 + 0.5 * rng.normal(size=n) > 0).astype(float)
    return X, y01, 2.0 * y01 - 1.0


def toy(n=600, d=4, seed=0, name="Adult"):
    X, y01, _ = synthetic(n, d + 1, seed)
    return TabularData(name, X, y01, tuple(f"x{i}" for i in range(d)), "synthetic")


def diffprivlib_noise(epsilon, n, d, parameters, seed, function_sensitivity=C_LOGISTIC):
    """The noise vector ``b`` and extra ridge ``Δ`` diffprivlib's ``Vector`` draws for these
    arguments and ``random_state = seed``, as LogisticRegression builds it (read off its gradient)."""
    from diffprivlib.mechanisms import Vector

    vector = Vector(
        epsilon=epsilon, dimension=d, alpha=1 / parameters["C"], function_sensitivity=function_sensitivity,
        data_sensitivity=parameters["data_norm"], n=n, random_state=np.random.RandomState(seed),
    )  # fmt: skip
    perturbed = vector.randomise(lambda f: (0.0, np.zeros(d)))
    at_zero = perturbed(np.zeros(d))[1]
    return at_zero * n, perturbed(np.eye(d)[0])[1][0] - at_zero[0]


@pytest.mark.parametrize("regulariser, epsilon", [(1e-12, 0.05), (1e-12, 1.0), (1e-3, 1.0), (0.05, 1.0)])
def test_diffprivlib_at_the_mapped_arguments_is_our_privateerm(regulariser, epsilon):
    """Both branches of Algorithm 2 (Λ = 1e-12 and 1e-3: extra Δ, ε' = ε/2; Λ = 0.05: ε' > 0): with
    C = 1/(nΛ), data_norm = 1 and no intercept on x̃, diffprivlib's ε', Δ and noise law are ours,
    and its fit for a given noise vector is our minimiser for that vector, to rounding."""
    pytest.importorskip("diffprivlib.models", reason="the oracle diffprivlib is absent (extra 'oracles')")
    X, y01, y_pm = synthetic(300, 5, seed=3)
    n, d, seed = len(X), X.shape[1] + 1, 7
    parameters = checks.diffprivlib_logistic_parameters(n, regulariser)
    assert parameters == {"C": 1 / (n * regulariser), "data_norm": 1.0, "fit_intercept": False}
    ours = erm.erm_calibration(epsilon, n, regulariser, C_LOGISTIC)
    noise, extra = diffprivlib_noise(epsilon, n, d, parameters, seed)
    reference, _ = diffprivlib_noise(epsilon, n, d, parameters, seed, function_sensitivity=0.0)  # ε' = ε, same draws
    assert extra == pytest.approx(ours.extra_regulariser, rel=1e-12, abs=1e-18)
    assert epsilon * np.linalg.norm(reference) / np.linalg.norm(noise) == pytest.approx(ours.epsilon_prime, rel=1e-12)
    library = checks.diffprivlib_logistic_regression(X, y01, epsilon, regulariser, seed=seed)
    f = erm.perturbed_erm_minimiser(erm.erm_design(X, y_pm), "logistic", regulariser + extra, noise)
    np.testing.assert_allclose(library, f / np.sqrt(d), rtol=1e-7, atol=1e-9)


def test_raw_features_cannot_be_matched_negative_control():
    """On raw ``[x, 1]`` (data_norm = √(d−1), bound q = √d) diffprivlib 0.6.6 calibrates Δ with
    ``c·q`` where CMS's proof needs ``c·q²``: the naive ω-space match C = 1/(n·d·Λ) gives an extra
    ridge that is not ours (``d·Δ``), which is why the mapping scales the features instead."""
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    n, d, regulariser, epsilon = 300, 5, 1e-12, 0.5
    raw = {"C": 1 / (n * d * regulariser), "data_norm": np.sqrt(d)}  # √(data_norm² + 1) with the intercept
    _, extra = diffprivlib_noise(epsilon, n, d, raw, seed=0)
    ours = d * erm.erm_calibration(epsilon, n, regulariser, C_LOGISTIC).extra_regulariser
    assert extra == pytest.approx(C_LOGISTIC * np.sqrt(d) / (n * np.expm1(epsilon / 4)) - d * regulariser, rel=1e-9)
    assert extra < ours / 2


def test_regularisers_below_the_threshold_are_one_mechanism():
    """Spec §3.4 "insensitive": Λ below c/(n(e^{ε/2} − 1)) gives ε' = ε/2 and the same total ridge."""
    n, epsilon = 39_073, 1.0
    threshold = C_LOGISTIC / (n * np.expm1(epsilon / 2))
    assert 9e-6 < threshold < 1.1e-5
    totals = {lam: erm.erm_calibration(epsilon, n, lam, C_LOGISTIC) for lam in (1e-12, 1e-6, 0.9 * threshold)}
    assert {c.epsilon_prime for c in totals.values()} == {epsilon / 2}
    np.testing.assert_allclose(
        [lam + c.extra_regulariser for lam, c in totals.items()], C_LOGISTIC / (n * np.expm1(epsilon / 4))
    )
    assert erm.erm_calibration(epsilon, n, 1.1 * threshold, C_LOGISTIC).extra_regulariser == 0


def test_job_points_run_each_point_once():
    points = checks.job_points([0.1, 1.0], 1e-12, 1.0, [1e-12, 1e-3])
    assert points == [
        ("PrivateERM", 1e-12, 0.1), ("diffprivlib", 1e-12, 0.1), ("PrivateERM", 1e-12, 1.0),
        ("diffprivlib", 1e-12, 1.0), ("PrivateERM", 1e-3, 1.0),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def jobs():
    pytest.importorskip("diffprivlib.models", reason="the oracle diffprivlib is absent (extra 'oracles')")
    data = toy()
    return data, pd.concat(
        [checks.baseline_checks_job(data, r, seed=11, **SETTINGS) for r in (0, 1)], ignore_index=True
    )


def test_job_is_deterministic_and_each_point_has_its_stream(jobs):
    data, frame = jobs
    again = checks.baseline_checks_job(data, 0, seed=11, **SETTINGS)
    pd.testing.assert_frame_equal(frame[frame.repetition == 0].reset_index(drop=True), again)
    other = checks.baseline_checks_job(data, 0, seed=12, **SETTINGS)
    assert not np.array_equal(other.error, again.error)
    assert len(again) == 2 * len(checks.job_points(SETTINGS["epsilons"], 1e-12, 1.0, SETTINGS["sweep_regularisers"]))
    assert (again.failure.fillna("") == "").all() and again.error.notna().all()


def test_table_has_the_intervals_its_claims_read(jobs):
    data, frame = jobs
    references = pd.concat(
        [
            privgene_jobs.run_job(
                data, privgene_jobs.reference("lr", "NoPrivacy", epsilon=1.0, use_folds=[0, 1]), r, seed=11
            )
            for r in (0, 1)
        ]
    )
    table = checks.baseline_checks_table(frame, references, sweep_epsilon=1.0)
    again = checks.baseline_checks_table(frame, references, sweep_epsilon=1.0)
    pd.testing.assert_frame_equal(table, again)
    for value in ("error", "baseline_error", "difference"):
        assert {f"{value}_ci_low", f"{value}_ci_high"} <= set(table.columns)
        assert (table[f"{value}_ci_low"] <= table[value]).all() and (table[value] <= table[f"{value}_ci_high"]).all()
    assert (table.runs == 4).all() and (table.failures == 0).all()
    assert list(table.check) == ["diffprivlib"] * 2 + ["regulariser_sweep"] * 3 + ["regulariser_sweep_best"]
    sweep = table[table.check == "regulariser_sweep"]
    best = table[table.check == "regulariser_sweep_best"].iloc[0]
    assert best.regulariser == sweep.regulariser[sweep.difference.idxmin()]
    mine = frame[(frame.method == "PrivateERM") & (frame.epsilon == 0.05)].set_index(["repetition", "fold"]).error
    library = frame[(frame.method == "diffprivlib") & (frame.epsilon == 0.05)].set_index(["repetition", "fold"]).error
    assert table.difference[0] == pytest.approx((mine - library).mean())
    claims = [c for c in load_registry(REPO / "workflow" / "claims" / "privgene.yaml") if c.table == "baseline_checks"]
    assert len(claims) == 3
    judged = evaluate_claims(claims, {"baseline_checks": table})
    assert set(judged.status) <= {"pass", "fail", "inconclusive"}


def test_every_release_spends_its_epsilon_ours_recorded_the_librarys_reported(jobs):
    """Our PrivateERM records its objective perturbation at the draw; diffprivlib's LogisticRegression
    is recorded as its own BudgetAccountant reports it; both spend the point's ε."""
    _, frame = jobs
    np.testing.assert_allclose(frame.spent_epsilon, frame.epsilon, rtol=1e-12)
    assert set(frame.mechanisms) == {"objective_perturbation", "diffprivlib.LogisticRegression"}
    ledger = checks.baseline_checks_ledger(frame)
    assert ledger.ledger_error.max() <= 1e-9 and (ledger.releases == 4).all()
    assert len(ledger) == len(frame.drop_duplicates(["method", "regulariser", "epsilon"]))


def test_an_absent_library_leaves_its_rows_missing(monkeypatch):
    def absent(*args, **kwargs):
        raise ImportError("No module named 'diffprivlib'")

    monkeypatch.setattr(checks, "diffprivlib_logistic_regression", absent)
    frame = checks.baseline_checks_job(toy(n=300), 0, seed=1, **{**SETTINGS, "sweep_regularisers": [1e-12]})
    library = frame[frame.method == "diffprivlib"]
    assert library.error.isna().all() and library.data_status.str.startswith("missing: diffprivlib").all()
    assert frame[frame.method == "PrivateERM"].error.notna().all()
    ledger = checks.baseline_checks_ledger(frame)  # the rows not computed released nothing
    assert set(ledger.method) == {"PrivateERM"} and ledger.ledger_error.max() <= 1e-9
