"""PrivateERM cross-checked (issues #32 item 8, #52 item 5; spec §3.4): the mapping to diffprivlib's
LogisticRegression and Vector mechanism, the jobs' determinism, the published table's intervals and
the configuration that pairs it with the Figs 3–4 runs.

Synthetic, seeded data only. Oracle: diffprivlib 0.6.6 (extra ``oracles``)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpreplication.data.tabular import TabularData
from dpreplication.learning import objective_perturbation as erm
from dpreplication.learning.models import unit_norm_features
from dpreplication.replications.privgene import baseline_checks as checks
from dpreplication.replications.privgene import jobs as privgene_jobs
from dpreplication.replications.privgene.config_checks import privgene_problems
from dpreplication.scorecard import evaluate_claims, load_registry

REPO = Path(__file__).resolve().parents[2]
C_LOGISTIC = 0.25
PRIVATE_ERM = {"erm_lr_regulariser": 1e-12, "erm_svm_regulariser": None, "erm_huber_h": 0.5, "svm_C": 10.0}
SETTINGS = {
    "tasks": ["lr", "svm"],
    "epsilons": [0.05, 1.0],
    "private_erm": PRIVATE_ERM,
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
    and its fit for a given noise vector is our minimiser for that vector, to the solvers' tolerance."""
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
    library = checks.diffprivlib_logistic_regression(unit_norm_features(X), y01, epsilon, regulariser, seed=seed)
    f = erm.perturbed_erm_minimiser(erm.erm_design(X, y_pm), "logistic", regulariser + extra, noise)
    np.testing.assert_allclose(library, f, rtol=1e-5, atol=1e-5 * np.abs(f).max())


@pytest.mark.parametrize("regulariser, epsilon, h", [(1 / 3000, 0.05, 0.5), (1 / 3000, 1.0, 0.5), (0.05, 1.0, 0.25)])
def test_diffprivlib_vector_on_the_huber_loss_is_our_privateerm_svm(regulariser, epsilon, h):
    """The Huber SVM through diffprivlib's Vector (c = 1/(2h), α = nΛ, sum scaling) draws our Δ and
    noise and, for its noise vector, lands on our minimiser: the loss written in the check is
    CMS 2011's Huber loss and the mean scaling keeps the minimiser."""
    pytest.importorskip("diffprivlib.mechanisms", reason="the oracle diffprivlib is absent (extra 'oracles')")
    X, _, y_pm = synthetic(300, 5, seed=4)
    n, d, seed = len(X), X.shape[1] + 1, 9
    parameters = {"C": 1 / (n * regulariser), "data_norm": 1.0}
    noise, extra = diffprivlib_noise(epsilon, n, d, parameters, seed, function_sensitivity=1 / (2 * h))
    assert extra == pytest.approx(
        erm.erm_calibration(epsilon, n, regulariser, 1 / (2 * h)).extra_regulariser, rel=1e-12
    )
    library = checks.diffprivlib_huber_svm(unit_norm_features(X), y_pm, epsilon, regulariser, h, seed=seed)
    f = erm.perturbed_erm_minimiser(erm.erm_design(X, y_pm), "huber", regulariser + extra, noise, huber_h=h)
    np.testing.assert_allclose(library, f, rtol=1e-6, atol=1e-6 * np.abs(f).max())


def test_the_checks_own_huber_loss_is_the_packages_and_its_gradient_is_exact():
    from dpreplication.learning.models import huber_hinge

    rng = np.random.default_rng(0)
    features, y_pm, f = rng.normal(size=(50, 3)), rng.choice([-1.0, 1.0], 50), rng.normal(size=3)
    value, gradient = checks.huber_loss_sum(f, features, y_pm, 0.5, alpha=0.3)
    assert value == pytest.approx(huber_hinge(y_pm * (features @ f), 0.5)[0].sum() + 0.15 * f @ f, rel=1e-12)
    step = 1e-6 * np.eye(3)
    numeric = [(checks.huber_loss_sum(f + e, features, y_pm, 0.5, 0.3)[0] - checks.huber_loss_sum(f - e, features, y_pm, 0.5, 0.3)[0]) / 2e-6 for e in step]  # fmt: skip
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6)


def test_the_independent_scaling_puts_every_row_on_the_unit_sphere():
    """Per-row normalisation (the library's input) meets CMS 2011's bound ‖x̃‖ ≤ 1 with equality, and
    equals ours (÷√d) exactly where every row has norm √d, as on Adult's ±1 rows."""
    X, _, _ = synthetic(200, 6, seed=5)
    rows = checks.row_normalised_features(X)
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, rtol=1e-12)
    signs = np.sign(X) + (X == 0)
    np.testing.assert_allclose(checks.row_normalised_features(signs), unit_norm_features(signs), rtol=1e-12)


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
    points = checks.job_points(["lr", "svm"], [0.1, 1.0], 1.0, [1e-12, 1e-3, 1e-3])
    assert points == [
        ("diffprivlib", "lr", None, 0.1), ("diffprivlib", "lr", None, 1.0), ("diffprivlib", "svm", None, 0.1),
        ("diffprivlib", "svm", None, 1.0), ("PrivateERM", "lr", 1e-12, 1.0), ("PrivateERM", "lr", 1e-3, 1.0),
    ]  # fmt: skip


def test_the_largest_difference_reads_each_bound_at_its_bonferroni_level():
    """Over k cells: the lower bound of max |d| at α/k per side of each cell, the upper at α/2 (a
    level of α at both, or the normal quantile, fails)."""
    cells = pd.DataFrame(
        {"epsilon": [0.05, 0.1, 1.0], "difference": [0.004, -0.03, 0.01], "difference_se": [0.01, 0.004, 0.002],
         "runs": [10, 10, 12]}
    )  # fmt: skip
    grid = checks.largest_difference(cells)
    assert grid["max_abs_difference"] == 0.03 and grid["max_abs_difference_epsilon"] == 0.1
    assert grid["max_abs_difference_runs"] == 10
    t = stats.t.isf
    lows = np.abs(cells.difference) - t(0.025 / 3, cells.runs - 1) * cells.difference_se
    highs = np.abs(cells.difference) + t(0.025 / 2, cells.runs - 1) * cells.difference_se
    assert grid["max_abs_difference_ci_low"] == pytest.approx(max(0.0, lows.max()), rel=1e-12)
    assert grid["max_abs_difference_ci_high"] == pytest.approx(highs.max(), rel=1e-12)


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
    points = checks.job_points(SETTINGS["tasks"], SETTINGS["epsilons"], 1.0, SETTINGS["sweep_regularisers"])
    assert len(again) == 2 * len(points)
    assert (again.failure.fillna("") == "").all() and again.error.notna().all()
    svm = again[again.task == "svm"]
    assert np.allclose(svm.regulariser, 1 / (10.0 * svm.n_train))  # PrivateERM's Λ = 1/(C·n) of the fold


def test_the_library_learns_on_the_training_fold_and_is_scored_on_the_held_out_one(jobs):
    """One library row recomputed from its stream by hand: the fit sees the training rows
    (per-row normalised), the error is read on the held-out fold."""
    from dpreplication import seeding
    from dpreplication.learning.models import misclassification_rate
    from dpreplication.learning.protocol import repetition_folds
    from dpreplication.replications.privgene.methods import task_labels

    data, frame = jobs
    for task in ("lr", "svm"):
        row = frame[(frame.method == "diffprivlib") & (frame.task == task) & (frame.repetition == 1)].iloc[-1]
        train, test = repetition_folds(len(data.features), 5, 11, "privgene", data.name, 1)[row.fold]
        stream = seeding.generator(11, "privgene", "baseline_checks", data.name, task, "diffprivlib", row.regulariser,
                                   1, row.fold, row.epsilon)  # fmt: skip
        features = checks.row_normalised_features(data.features[train])
        labels, seed = data.labels[train], int(stream.integers(2**32))
        f = (
            checks.diffprivlib_logistic_regression(features, labels, row.epsilon, row.regulariser, seed=seed)
            if task == "lr"
            else checks.diffprivlib_huber_svm(
                features, task_labels("svm", labels), row.epsilon, row.regulariser, 0.5, seed=seed
            )  # fmt: skip
        )
        truth = task_labels(task, data.labels[test])
        assert row.error == misclassification_rate(data.features[test], truth, f, task)
        assert row.n_train == len(train) and row.n_test == len(test)


def published_private_erm(data):
    """The Figs 3–4 PrivateERM rows of the same folds, as the comparison jobs publish them."""
    return pd.concat(
        [
            privgene_jobs.run_job(
                data,
                privgene_jobs.comparison(
                    task, "PrivateERM", epsilons=SETTINGS["epsilons"], use_folds=[0, 1], **PRIVATE_ERM
                ),
                r,
                seed=11,
            )  # fmt: skip
            for task in SETTINGS["tasks"]
            for r in (0, 1)
        ]
    )


def test_table_pairs_the_published_runs_with_the_librarys_and_has_the_intervals_its_claims_read(jobs):
    data, frame = jobs
    comparison = published_private_erm(data)
    references = pd.concat(
        [
            privgene_jobs.run_job(
                data, privgene_jobs.reference("lr", "NoPrivacy", epsilon=1.0, use_folds=[0, 1]), r, seed=11
            )
            for r in (0, 1)
        ]
    )
    table = checks.baseline_checks_table(frame, comparison, references, sweep_epsilon=1.0)
    pd.testing.assert_frame_equal(table, checks.baseline_checks_table(frame, comparison, references, sweep_epsilon=1.0))
    cells = table[table.check == "diffprivlib"]
    for value in ("error", "baseline_error", "difference"):
        assert (cells[f"{value}_ci_low"] <= cells[value]).all() and (cells[value] <= cells[f"{value}_ci_high"]).all()
    assert (table.runs == 4).all() and (table.failures == 0).all()
    assert list(table.check) == (["diffprivlib"] * 2 + ["diffprivlib_every_epsilon"]) * 2 + [
        "regulariser_sweep"
    ] * 3 + ["regulariser_sweep_best"]
    sweep = table[table.check == "regulariser_sweep"]
    best = table[table.check == "regulariser_sweep_best"].iloc[0]
    assert best.regulariser == sweep.regulariser[sweep.difference.idxmin()]
    keys = ["repetition", "fold"]
    for task in ("lr", "svm"):
        ours = comparison[(comparison.task == task) & (comparison.epsilon == 0.05)].set_index(keys).error
        library = frame[(frame.task == task) & (frame.method == "diffprivlib") & (frame.epsilon == 0.05)]
        row = cells[(cells.task == task) & (cells.epsilon == 0.05)].iloc[0]
        assert row.difference == pytest.approx((ours - library.set_index(keys).error).mean())
        grid = table[(table.check == "diffprivlib_every_epsilon") & (table.task == task)].iloc[0]
        assert grid.max_abs_difference == pytest.approx(cells[cells.task == task].difference.abs().max())
        assert grid.max_abs_difference_ci_low <= grid.max_abs_difference <= grid.max_abs_difference_ci_high
    claims = [c for c in load_registry(REPO / "workflow" / "claims" / "privgene.yaml") if c.table == "baseline_checks"]
    assert len(claims) == 5
    both = pd.concat([table, table.assign(dataset="Banking")], ignore_index=True)  # the default's two datasets
    judged = evaluate_claims(claims, {"baseline_checks": both})
    assert set(judged.status) <= {"pass", "fail", "inconclusive"}
    with pytest.raises(ValueError, match="no PrivateERM row of the comparison jobs for 4"):
        checks.baseline_checks_table(frame, comparison[comparison.repetition == 0], references, sweep_epsilon=1.0)


def test_every_release_spends_its_epsilon_ours_recorded_the_librarys_reported(jobs):
    """Our PrivateERM records its objective perturbation at the draw; diffprivlib's LogisticRegression
    as its own BudgetAccountant reports it, its Vector as the mechanism states it; each spends the
    point's ε."""
    _, frame = jobs
    np.testing.assert_allclose(frame.spent_epsilon, frame.epsilon, rtol=1e-12)
    assert set(frame.mechanisms) == {"objective_perturbation", "diffprivlib.LogisticRegression", "diffprivlib.Vector"}
    ledger = checks.baseline_checks_ledger(frame)
    assert ledger.ledger_error.max() <= 1e-9 and (ledger.releases == 4).all()
    assert len(ledger) == len(frame.drop_duplicates(["task", "method", "epsilon"]))


def test_an_absent_library_leaves_its_rows_missing(monkeypatch):
    def absent(*args, **kwargs):
        raise ImportError("No module named 'diffprivlib'")

    monkeypatch.setattr(checks, "diffprivlib_logistic_regression", absent)
    monkeypatch.setattr(checks, "diffprivlib_huber_svm", absent)
    frame = checks.baseline_checks_job(toy(n=300), 0, seed=1, **{**SETTINGS, "sweep_regularisers": [1e-12]})
    library = frame[frame.method == "diffprivlib"]
    assert len(library) == 8 and library.error.isna().all()
    assert library.data_status.str.startswith("missing: diffprivlib").all()
    assert frame[frame.method == "PrivateERM"].error.notna().all()
    ledger = checks.baseline_checks_ledger(frame)  # the rows not computed released nothing
    assert set(ledger.method) == {"PrivateERM"} and ledger.ledger_error.max() <= 1e-9


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"datasets": ["Adult", "US"]}, "['US'] not in privgene.comparison.datasets"),
        ({"tasks": ["lr", "svm"]}, "['svm'] have no PrivateERM series"),
        ({"repetitions": 11}, "11 > privgene.comparison.repetitions 10"),
    ],
)
def test_a_check_the_figs_3_4_runs_cannot_pair_is_refused(change, problem):
    privgene = {
        "comparison": {"datasets": ["Adult", "Banking"], "repetitions": 10,
                       "methods": {"lr": ["PrivateERM", "NoPrivacy"], "svm": ["PrivGene"]}},
        "reference": {"datasets": ["Adult", "Banking", "US", "BR"], "tasks": ["lr", "svm"]},
        "ablations": {"baseline_checks": {"datasets": ["Adult"], "tasks": ["lr"], "repetitions": 2, **change}},
    }  # fmt: skip
    problems = privgene_problems({"privgene": privgene})
    assert len(problems) == 1 and problem in problems[0], problems
    assert (
        privgene_problems({"privgene": {**privgene, "ablations": {"baseline_checks": {"datasets": ["Adult"]}}}}) == []
    )
