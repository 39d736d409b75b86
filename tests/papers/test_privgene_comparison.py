"""PrivGene Figs 3–5 wiring: the configured methods and keys against the job functions, the job
tables of every method on tiny synthetic data, failure reporting, pairing and the figure tables."""

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpreplication.accounting.ledger import LEDGER_COLUMNS
from dpreplication.data.tabular import TabularData
from dpreplication.learning import models, objective_perturbation
from dpreplication.pipeline.config import profile_config
from dpreplication.plotting import curves
from dpreplication.replications.privgene import comparison as pc
from dpreplication.replications.privgene import comparison_figures as pcf
from dpreplication.replications.privgene import datasets as privgene_datasets
from dpreplication.replications.privgene import jobs, rule_settings
from dpreplication.replications.privgene import methods as pg

REPO = Path(__file__).resolve().parents[2]
SEED = 7
EPSILONS = [0.5, 4.0]
JOB_COLUMNS = [
    "dataset",
    "task",
    "method",
    "repetition",
    "fold",
    "n_train",
    "n_test",
    "epsilon",
    "error",
    "r",
    "failure",
    *LEDGER_COLUMNS,
]


def privgene_config(profile):
    """The privgene section of a profile's whole configuration, as the workflow resolves it."""
    return profile_config(profile, REPO)["privgene"]


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_configured_methods_and_keys_fit_the_job_functions(profile):
    """Every configured key is a field of the methods' settings (an unknown key fails to build the
    job), and every field a baseline reads is configured: none silently keeps its default."""
    config = privgene_config(profile)
    section = config["comparison"]
    used = set()
    for task, methods in section["methods"].items():
        assert set(methods) <= set(pg.METHODS[task]) and "PrivGene" in methods
        for method in set(methods) - set(pg.EPSILON_FREE):
            settings = rule_settings.job_settings(section, config["algorithm"], config["protocol"], method)
            assert settings["epsilons"] == section["epsilons"]
            job = jobs.comparison(task, method, **settings)  # TypeError on an unknown key
            assert (job.task.name, job.method, job.folds) == (task, method, config["protocol"]["folds"])
            used |= set(settings) - {"epsilons", *config["protocol"]}
    fields = {field.name for field in dataclasses.fields(pg.MethodSettings)}
    set_by_the_jobs = {"selection", "r_selection", "restarts", "max_iter"}  # PrivGene's variants; k-means keys
    assert used == fields - set_by_the_jobs, "every baseline setting is configured, and nothing else"
    assert {"gupt_eps_fraction", "erm_lr_regulariser", "erm_svm_regulariser", "erm_huber_h"} <= used
    kmeans = section["kmeans"]
    assert set(kmeans["methods"]) == set(pg.METHODS["kmeans"]) and set(kmeans["panels"]) <= set(
        privgene_datasets.DATASETS
    )
    for method in kmeans["methods"]:
        jobs.kmeans(3, method, **rule_settings.kmeans_job_settings(section, config["algorithm"], method))
    # claims read rows at the smallest ε, 0.1 and the largest: every profile's grid must have them
    assert {0.05, 0.1, 1.0} <= set(section["epsilons"])


def test_an_unknown_setting_fails_to_build_the_job():
    with pytest.raises(TypeError, match="erm_lr_regulariserr"):
        jobs.comparison("lr", "PrivateERM", epsilons=[1.0], erm_lr_regulariserr=1e-3)


def comparison_job(data, task, method, repetition, **settings):
    return jobs.run_job(data, jobs.comparison(task, method, **settings), repetition, seed=SEED)


def reference_job(data, task, method, repetition):
    job = jobs.reference(task, method, epsilon=1.0, svm_C=1.0, folds=2)
    return jobs.run_job(data, job, repetition, seed=SEED)


@pytest.fixture(scope="module")
def classification():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(600, 4))
    labels = (x @ np.array([1.5, -1.0, 0.5, 0.0]) + 0.3 * rng.normal(size=600) > 0.2).astype(np.int8)
    return TabularData("Banking", x, labels, tuple(f"x{j}" for j in range(4)), "synthetic", "")


@pytest.fixture(scope="module")
def clusters():
    rng = np.random.default_rng(4)
    centres = np.array([[-0.6, -0.5], [0.5, 0.6], [0.6, -0.6]])
    points = np.clip(centres[rng.integers(3, size=900)] + 0.08 * rng.normal(size=(900, 2)), -1, 1)
    return TabularData("Lifesci", points, None, ("a", "b"), "synthetic", "")


def settings_for(method):
    section = {
        "epsilons": EPSILONS,
        "gupt_eps_fraction": 1.0,
        "erm_lr_regulariser": 1e-12,
        "erm_svm_regulariser": None,
        "erm_huber_h": 0.5,
    }
    algorithm = {"m": 20, "c": 0.02, "svm_C": 10, "kmeans_delta_factor": 2}
    return rule_settings.job_settings(section, algorithm, {"folds": 2, "use_folds": None}, method)


@pytest.fixture(scope="module")
def linear_jobs(classification):
    frames = [
        comparison_job(classification, task, method, repetition, **settings_for(method))
        for task in ("lr", "svm")
        for method in pg.METHODS[task]
        if method not in pg.EPSILON_FREE
        for repetition in (0, 1)
    ]
    frames += [
        reference_job(classification, task, "NoPrivacy", repetition) for task in ("lr", "svm") for repetition in (0, 1)
    ]
    return frames


def test_every_comparison_job_has_one_row_per_fold_and_epsilon(linear_jobs):
    for frame in linear_jobs[:-4]:
        assert list(frame.columns) == JOB_COLUMNS
        assert len(frame) == 2 * len(EPSILONS) and sorted(set(frame.epsilon)) == EPSILONS
        assert frame.error.between(0, 1).all() and (frame.failure == "").all()
        assert frame.r.notna().all() == (frame.method.iloc[0] == "PrivGene")
    privgene_rows = pd.concat([f for f in linear_jobs if f.method.iloc[0] == "PrivGene"])
    assert (
        privgene_rows.r == [pg.iterations(0.02, n, e, 1) for n, e in zip(privgene_rows.n_train, privgene_rows.epsilon)]
    ).all()


def test_all_methods_of_a_repetition_share_the_folds(linear_jobs, classification):
    sizes = {tuple(f.groupby("fold").n_train.first()) for f in linear_jobs if f.repetition.iloc[0] == 0}
    assert len(sizes) == 1
    splits = pg.repetition_folds(len(classification.features), 2, SEED, pg.PAPER, "Banking", 0)
    assert sizes == {tuple(len(train) for train, _ in splits)}


def test_a_point_does_not_depend_on_the_rest_of_the_grid(classification):
    for method in ("PrivGene", "GUPT", "PrivateSVM"):
        full = comparison_job(classification, "svm", method, 0, **settings_for(method))
        alone = comparison_job(classification, "svm", method, 0, **{**settings_for(method), "epsilons": [4.0]})
        assert full[full.epsilon == 4.0].error.tolist() == alone.error.tolist(), method


def test_non_convergence_is_reported_and_releases_nothing(classification, monkeypatch):
    def fails(*args, **kwargs):
        raise models.ConvergenceError("L-BFGS stopped with max|gradient| 1 > 1e-7")

    monkeypatch.setattr(objective_perturbation, "fit_private_erm", fails)
    frame = comparison_job(classification, "lr", "PrivateERM", 0, **settings_for("PrivateERM"))
    assert frame.error.isna().all() and frame.failure.str.startswith("ConvergenceError").all()
    runs = pcf.comparison_runs(frame)
    figure = pcf.comparison_figure(runs)
    assert (
        (figure.failures == 2).all() and figure.error.isna().all() and (figure.runs.isna() | (figure.runs == 0)).all()
    )


@pytest.fixture(scope="module")
def kmeans_jobs(clusters):
    section = {"epsilons": EPSILONS, "gupt_eps_fraction": 1.0, "kmeans": {"restarts": 2, "max_iter": 50}}
    algorithm = {"m": 20, "c": 0.02, "svm_C": 10, "kmeans_delta_factor": 2}
    return [
        jobs.run_job(
            clusters,
            jobs.kmeans(k, method, **rule_settings.kmeans_job_settings(section, algorithm, method)),
            run,
            seed=SEED,
        )
        for k in (2, 3)
        for method in pg.METHODS["kmeans"]
        for run in (0, 1)
    ]


def test_kmeans_jobs(kmeans_jobs, clusters):
    for frame in kmeans_jobs:
        method = frame.method.iloc[0]
        assert {"dataset", "task", "k", "method", "repetition", "epsilon", "variance", "r"} <= set(frame.columns)
        assert len(frame) == (1 if method == "NoPrivacy" else len(EPSILONS))
        assert (frame.variance > 0).all() and (frame.n_train == len(clusters.features)).all()
    privgene_rows = pd.concat([f for f in kmeans_jobs if f.method.iloc[0] == "PrivGene"])
    assert (privgene_rows.r == [pg.iterations(0.02, 900, e, 10) for e in privgene_rows.epsilon]).all()


def test_only_noprivacy_rows_of_drawn_tasks_and_datasets_join_the_figures(linear_jobs, classification):
    """The reference job runs Majority and other datasets too: only NoPrivacy's rows of the
    figures' datasets, for tasks whose series draw NoPrivacy, join the comparison jobs."""
    jobs = pd.concat([f for f in linear_jobs if f.method.iloc[0] != "NoPrivacy"], ignore_index=True)
    references = [
        reference_job(classification, task, method, repetition)
        for task in ("lr", "svm")
        for method in ("NoPrivacy", "Majority")
        for repetition in (0, 1)
    ]
    references.append(references[0].assign(dataset="Adult"))  # a reference dataset the figures do not draw
    settings = {"datasets": ["Banking"], "methods": {"lr": ["PrivGene", "Majority", "NoPrivacy"], "svm": ["PrivGene"]}}
    joined = pcf.with_references(jobs, references, settings)
    added = joined.iloc[len(jobs) :]
    assert set(zip(added.dataset, added.task, added.method)) == {("Banking", "lr", "NoPrivacy")}
    assert len(added) == 2 * 2  # 2 repetitions × 2 folds
    majority = joined[(joined.task == "lr") & (joined.method == "Majority")]
    assert majority[jobs.columns].equals(
        jobs[(jobs.task == "lr") & (jobs.method == "Majority")]
    )  # none of the references
    assert pcf.with_references(jobs, [], settings).equals(jobs)


def test_comparison_tables_and_figures(linear_jobs, kmeans_jobs, classification, clusters):
    linear, kmeans = pd.concat(linear_jobs), pd.concat(kmeans_jobs)
    tables = {figure: pcf.figure_table(figure, kmeans if figure == "fig5" else linear) for figure in pcf.FIGURES}
    assert pcf.figure_table("fig3", linear[linear.task == "lr"]).equals(tables["fig3"])  # other tasks ignored
    tables.update(pcf.pair_tables(linear, kmeans))
    fig3, fig5 = tables["fig3"], tables["fig5"]
    assert list(fig3.method.unique()) == ["PrivGene", "PrivateERM", "FM", "GUPT", "Majority", "NoPrivacy"]
    assert (fig3.runs == 4).all() and (fig3.failures == 0).all()  # 2 repetitions × 2 folds
    flat = fig3[fig3.method == "NoPrivacy"]
    assert flat.epsilon.tolist() == EPSILONS and flat.error.nunique() == 1
    assert set(fig5.task) == {"kmeans_k2", "kmeans_k3"} and (fig5[fig5.method != "NoPrivacy"].runs == 2).all()

    pairs = tables["pairs"]
    row = pairs[(pairs.task == "lr") & (pairs.method == "PrivGene") & (pairs.baseline == "FM") & (pairs.epsilon == 0.5)]
    runs = pcf.comparison_runs(pd.concat(linear_jobs))
    mine = runs[(runs.task == "lr") & (runs.epsilon == 0.5)].set_index(["repetition", "fold", "method"]).error.unstack()
    assert row.difference.item() == pytest.approx((mine.PrivGene - mine.FM).mean())
    assert row.ratio.item() == pytest.approx(mine.FM.mean() / mine.PrivGene.mean())
    assert len(pairs[(pairs.task == "lr") & (pairs.epsilon == 0.5)]) == 15  # 6 methods: 15 pairs

    summary = tables["summary"].set_index(["task", "method", "baseline"])
    by_pair = pairs.groupby(["task", "method", "baseline"])
    assert (summary.max_difference == by_pair.difference.max().reindex(summary.index)).all()
    gupt = summary.loc[("kmeans_k3", "PrivGene", "GUPT")]
    assert gupt.ratio_growth == pytest.approx(gupt.ratio_at_smallest_epsilon / gupt.ratio_at_largest_epsilon)
    levels = tables["levels"].set_index(["task", "method"])
    assert (
        levels.loc[("lr", "NoPrivacy")].range_over_epsilon == 0
        and levels.loc[("lr", "PrivGene")].r_at_largest_epsilon > 0
    )

    data = {"Banking": classification, "Lifesci": clusters}
    titles = pcf.panel_titles(fig5, data)
    assert titles == [["Lifesci", "kmeans_k2", "(a) Lifesci, k = 2"], ["Lifesci", "kmeans_k3", "(b) Lifesci, k = 3"]]
    figure = curves.value_against_epsilon(fig5, "variance", "variance", titles, log_y=["Lifesci"], dashed=["NoPrivacy"])
    assert len(figure.axes) == 2 and figure.axes[0].get_yscale() == "log" and figure.axes[0].get_xscale() == "log"
    assert len(curves.value_against_epsilon(fig3, "error", "error", pcf.panel_titles(fig3, data)).axes) == 1


def test_paper_r_ablation_pairs_with_the_main_jobs_and_runs_the_paper_r():
    from dpreplication.data.tabular import TabularData

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 3))
    data = TabularData(name="toy", features=X, labels=(X[:, 0] > 0).astype(float), columns=("a", "b", "c"), source="t")
    algorithm = {"m": 20, "c": 2e-3, "svm_C": 10.0}
    privgene, privateerm = {"algorithm": algorithm, "folds": 3, "use_folds": None}, {"folds": 3, "use_folds": None}
    keys = dict(seed=1, epsilons=[0.5, 1.0], paper_training_rows=2000, privgene=privgene, privateerm=privateerm)
    frame = pc.paper_r_comparison_job(data, "lr", 0, fm=privateerm, **keys)
    for method in ("PrivGene", "FM"):
        settings = privgene if method == "PrivGene" else privateerm
        main = jobs.run_job(data, jobs.comparison("lr", method, epsilons=[0.5, 1.0], **settings), 0, seed=1)
        ours = frame[frame.method == method].reset_index(drop=True)
        pd.testing.assert_frame_equal(ours[main.columns], main, check_dtype=False)  # same streams, same numbers
    ablation = frame[frame.method == pc.PAPER_R_METHOD]
    assert sorted(set(zip(ablation.epsilon, ablation.r))) == [(0.5, 2), (1.0, 4)]  # round(2e-3 · 2000 · ε)
    summary = pc.paper_r_summary(frame)
    assert list(summary.r_paper) == [2, 4] and (summary.runs == 3).all()
    wide = frame.pivot_table(index=["fold", "epsilon"], columns="method", values="error")
    paired = (wide[pc.PAPER_R_METHOD] - wide["FM"]).groupby("epsilon").mean()
    np.testing.assert_allclose(summary.paper_r_minus_fm, paired.to_numpy())
    assert (summary.paper_r_minus_fm_ci_low < summary.paper_r_minus_fm_ci_high).all()
    # SVM has no FM series: its FM columns are NaN, PrivateERM's are not.
    svm = pc.paper_r_summary(pc.paper_r_comparison_job(data, "svm", 0, fm=privateerm, **keys))
    assert svm.paper_r_minus_fm.isna().all() and svm.paper_r_minus_privateerm.notna().all()
