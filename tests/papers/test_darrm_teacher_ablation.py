"""DaRRM teacher ablation (issue "DaRRM on MNIST"): σ recalibrated to the stated ε, the authors'
ICLR calibration through Opacus, which configurations are within the stated budget, the choice of
the best one, the table's bookkeeping on synthetic votes, and — on toy IDX files — that the
stated configuration reproduces the pipeline's teachers vote for vote and that SGD is really used."""

import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpreplication.accounting import rdp
from dpreplication.data import DATASETS
from dpreplication.data.catalog import DataFile, Dataset
from dpreplication.data.fetch import content_sha256
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.darrm import prediction
from dpreplication.replications.darrm import teacher_ablation as ablation
from dpreplication.replications.darrm import teacher_ablation_choice as choice
from dpreplication.replications.darrm import teachers as darrm_teachers

REPO = Path(__file__).resolve().parents[2]
CONFIG = profile_config("default", REPO)["darrm"]
SETTINGS = ablation.ablation_settings(CONFIG["private_prediction"], CONFIG["teacher_ablation"], "highs")
MNIST_RATE = 1 / 32  # Opacus' rate for the 1,024-image MNIST shards at batch 32


def within_budget(sigma, sample_rate, steps, epsilon, delta):
    """The guarantee of a calibrated σ: ε ≤ target, and not loose by more than 1e-8 relative."""
    achieved = rdp.dp_sgd_epsilon(sigma, sample_rate, steps, delta)
    return achieved <= epsilon and achieved >= epsilon * (1 - 1e-8)


# --------------------------------------------------------------------------- calibration


@pytest.mark.parametrize("steps", [32, 104, 320, 960])
def test_noise_multiplier_is_calibrated_to_the_stated_epsilon(steps):
    sigma = rdp.calibrate_noise_multiplier(0.0892, 1e-4, MNIST_RATE, steps)
    assert within_budget(sigma, MNIST_RATE, steps, 0.0892, 1e-4)


def test_noise_calibration_inverts_the_accountant():
    """σ = 10 for 104 steps at q = 1/32 has ε = 0.08886 (the pipeline's teachers); calibrating to
    that ε gives back σ = 10, and more steps need more noise."""
    epsilon = rdp.dp_sgd_epsilon(10.0, MNIST_RATE, 104, 1e-4)
    assert rdp.calibrate_noise_multiplier(epsilon, 1e-4, MNIST_RATE, 104) == pytest.approx(10.0, rel=1e-8)
    sigmas = [rdp.calibrate_noise_multiplier(0.0892, 1e-4, MNIST_RATE, steps) for steps in (32, 320, 960)]
    assert sigmas == sorted(sigmas)


def test_noise_calibration_below_the_initial_bracket():
    """A loose target met already at σ = 0.25 is still inverted (the bracket widens downwards)."""
    sigma = rdp.calibrate_noise_multiplier(100.0, 1e-5, 0.01, 10)
    assert sigma < 0.25
    assert rdp.dp_sgd_epsilon(sigma, 0.01, 10, 1e-5) <= 100.0 < rdp.dp_sgd_epsilon(sigma * (1 - 1e-6), 0.01, 10, 1e-5)


def test_the_budget_check_catches_an_optimistic_accountant(monkeypatch):
    """Negative control: calibrated against an accountant that reports half the true ε, the σ is
    too small and the check above rejects it."""
    true_epsilon = rdp.dp_sgd_epsilon
    monkeypatch.setattr(rdp, "dp_sgd_epsilon", lambda *args, **kwargs: 0.5 * true_epsilon(*args, **kwargs))
    sigma = rdp.calibrate_noise_multiplier(0.0892, 1e-4, MNIST_RATE, 320)
    monkeypatch.setattr(rdp, "dp_sgd_epsilon", true_epsilon)
    assert not within_budget(sigma, MNIST_RATE, 320, 0.0892, 1e-4)


def test_authors_iclr_calibration_through_opacus():
    """The ICLR run (10 epochs, ε = 0.1075 at δ = 1e-3, PRV): Opacus' σ meets its own target
    but is outside the stated budget (ε_teacher = 0.0892 at Δ = 1e-4) under our accountant."""
    pytest.importorskip("opacus", reason="the authors' calibration is Opacus' (extra 'learning')")
    sigma = rdp.opacus_noise_multiplier(0.1075, 1e-3, MNIST_RATE, 320, "prv")
    assert rdp.opacus_epsilon(sigma, MNIST_RATE, 320, 1e-3, "prv") <= 0.1075
    assert rdp.dp_sgd_epsilon(sigma, MNIST_RATE, 320, 1e-4) > 0.0892


# --------------------------------------------------------------------------- plans of the configured grid


def configured(name):
    return next(c for c in CONFIG["teacher_ablation"]["configs"] if c["name"] == name)


def test_configured_plans_and_their_budgets():
    pytest.importorskip("opacus", reason="the authors' calibration is Opacus' (extra 'learning')")
    stated = ablation.training_plan(configured("stated"), SETTINGS, MNIST_RATE)
    assert (stated.noise_multiplier, stated.steps, stated.epochs) == (10.0, 104, 3.25) and stated.within_stated_budget
    for config in CONFIG["teacher_ablation"]["configs"]:
        plan = ablation.training_plan(config, SETTINGS, MNIST_RATE)
        assert plan.optimiser == config["optimizer"] and plan.learning_rate == config["learning_rate"]
        if config["epochs"] is not None:
            assert plan.steps == round(config["epochs"] * 32)
        if config["budget"] == "stated":
            assert plan.within_stated_budget and plan.epsilon == plan.epsilon_stated_delta <= 0.0892
            if config["epochs"] is not None:
                assert within_budget(plan.noise_multiplier, MNIST_RATE, plan.steps, 0.0892, 1e-4)
        else:
            assert not plan.within_stated_budget and (plan.delta, plan.accountant) == (1e-3, "prv")
            assert plan.epsilon <= 0.1075


def test_an_under_noised_plan_is_flagged_outside_the_budget(monkeypatch):
    """Negative control of the flag: 10 % less noise than calibrated exceeds the stated ε."""
    calibrate = rdp.calibrate_noise_multiplier
    monkeypatch.setattr(rdp, "calibrate_noise_multiplier", lambda *args: 0.9 * calibrate(*args))
    assert not ablation.training_plan(configured("adam_e10"), SETTINGS, MNIST_RATE).within_stated_budget


def test_the_pipelines_protocol_needs_the_stated_budget():
    with pytest.raises(ValueError, match="stated budget"):
        ablation.training_plan({**configured("stated"), "budget": "authors_iclr"}, SETTINGS, MNIST_RATE)


# --------------------------------------------------------------------------- the table on synthetic votes


def test_best_is_the_most_accurate_on_validation_within_the_stated_budget():
    table = pd.DataFrame(
        {
            "config": ["a", "b", "c", "d", "e"],
            "within_stated_budget": [True, True, False, True, True],
            "validation_accuracy_mean": [0.6, 0.7, 0.9, 0.7, 0.5],
            "accuracy_mean": [0.6, 0.7, 0.9, 0.7, 0.99],  # the query part never chooses
        }
    )
    assert choice.mark_best(table).best.tolist() == [False, True, False, False, False]
    with pytest.raises(ValueError, match="within the stated budget"):
        choice.mark_best(table.assign(within_stated_budget=False))


def test_validation_and_query_parts_are_disjoint_seeded_and_fixed():
    mask = choice.validation_mask(1866, 0.5, seed=7, dataset="mnist")
    assert mask.sum() == 933 and np.array_equal(mask, choice.validation_mask(1866, 0.5, seed=7, dataset="mnist"))
    assert not np.array_equal(mask, choice.validation_mask(1866, 0.5, seed=8, dataset="mnist"))
    assert 400 < mask[:933].sum() < 533  # a uniform draw, not the first half of the pool
    for share in (0.0, 1.0):
        with pytest.raises(ValueError, match="validation share"):
            choice.validation_mask(10, share, seed=7, dataset="mnist")


def test_a_configuration_job_depends_on_its_configuration_only():
    settings = synthetic_settings(2)
    one = ablation.configuration_settings(settings, "good")
    assert one["ablation"]["configs"] == [settings["ablation"]["configs"][1]]
    more = {
        **settings,
        "ablation": {
            **settings["ablation"],
            "m": 5,
            "validation_share": 0.3,
            "configs": [*settings["ablation"]["configs"], {"name": "new"}],
        },
    }
    assert ablation.configuration_settings(more, "good") == one
    with pytest.raises(ValueError, match="no single configuration"):
        ablation.configuration_settings(settings, "absent")


def synthetic_settings(n, seeds=2):
    """K = 5 teachers of a toy dataset, ε_teacher = 0.2 (a small γ_opt LP), ``seeds`` replicates."""
    section = {
        **CONFIG["private_prediction"],
        "datasets": {"toy": {"epsilon_teacher": 0.2}},
        "teachers": 5,
    }
    configs = [
        {"name": "stated", "epochs": None, "optimizer": "adam", "learning_rate": 0.01, "budget": "stated"},
        {"name": "good", "epochs": 2, "optimizer": "sgd", "learning_rate": 0.1, "budget": "stated"},
        {"name": "iclr", "epochs": 2, "optimizer": "adam", "learning_rate": 0.01, "budget": "authors_iclr"},
    ]
    budgets = {"authors_iclr": {"epsilon": 1.0, "delta": 1e-3, "accountant": "prv"}}  # above the toy's 0.2
    return ablation.ablation_settings(
        section,
        {
            **CONFIG["teacher_ablation"],
            "dataset": "toy",
            "teachers": n,
            "seeds": seeds,
            "validation_share": 0.5,
            "configs": configs,
            "budgets": budgets,
        },
        "highs",
    )


def fake_training(truth, pipeline_votes, accuracy_of):
    """A stand-in for DP-SGD: the stated configuration returns the pipeline's votes; the others a
    teacher right on a share ``accuracy_of[name]`` of the pool (a different share per replicate)
    and always class 8 elsewhere."""

    def train(files, settings, config, indices, seed, threads=1, replicate=0):
        plan = ablation.training_plan(config, settings, 0.25)
        indices = list(indices)
        if config["name"] == "stated":
            votes = pipeline_votes[indices]
        else:
            share = accuracy_of[config["name"]] - 0.05 * replicate
            right = np.random.default_rng(replicate).random(truth.size) < share
            votes = np.tile(np.where(right, truth, 8), (len(indices), 1))
        rows = [
            {
                "config": plan.config,
                "replicate": replicate,
                "teacher": t,
                **ablation.quality.vote_diagnostics(v, truth, [5, 8]),
                "seconds": 0.0,
            }
            for t, v in zip(indices, votes)
        ]
        return plan, votes, (truth, np.arange(truth.size)), rows

    return train


def trained_configurations(settings, truth, pipeline, accuracy_of, monkeypatch):
    monkeypatch.setattr(ablation, "train_configuration", fake_training(truth, pipeline["votes"], accuracy_of))
    trained = {}
    for config in settings["ablation"]["configs"]:
        _, arrays, rows = ablation.configuration_votes({}, settings, config, seed=1)
        trained[config["name"]] = (arrays, pd.DataFrame(rows))
    return trained


@pytest.mark.parametrize("n", [5, 2])
def test_ablation_table_bookkeeping(monkeypatch, n):
    pytest.importorskip("opacus", reason="the authors' calibration is Opacus' (extra 'learning')")
    rng = np.random.default_rng(3)
    truth = rng.choice([5, 8], size=200)
    pipeline = {"votes": np.tile(np.full(200, 8), (5, 1)), "labels": truth, "test_index": np.arange(200)}
    nonprivate = {"votes": np.tile(truth, (5, 1)), "labels": truth, "test_index": np.arange(200)}
    settings = synthetic_settings(n)
    trained = trained_configurations(settings, truth, pipeline, {"good": 0.9, "iclr": 1.0}, monkeypatch)
    assert trained["good"][0]["votes"].shape == (2, n, 200) and len(trained["good"][1]) == 2 * n
    table = choice.ablation_table(trained, settings, {"private": pipeline, "nonprivate": nonprivate}, seed=1)
    rows = table.set_index("config")
    assert rows.loc["stated", "collapsed_teachers"] == 2 * n and rows.loc["stated", "votes_as_pipeline"] == 1.0
    assert rows.loc["good", "collapsed_teachers"] == 0 and np.isnan(rows.loc["good", "votes_as_pipeline"])
    assert (rows.seeds == 2).all() and (rows.validation_images + rows.query_images == 200).all()
    # The seeds differ (0.9 and 0.85 of the pool right), so the validation accuracy has a spread.
    assert (
        rows.loc["good", "validation_accuracy_seed_sd"] > 0 and rows.loc["stated", "validation_accuracy_seed_sd"] == 0
    )
    mask = choice.validation_mask(200, 0.5, seed=1, dataset="toy")
    good = trained["good"][0]["votes"]
    assert rows.loc["good", "validation_accuracy_mean"] == pytest.approx(np.mean(good[..., mask] == truth[mask]))
    assert rows.loc["good", "accuracy_mean"] == pytest.approx(np.mean(good[..., ~mask] == truth[~mask]))
    # "iclr" is the most accurate but outside the stated budget: "good" is the best.
    assert table.best.tolist() == [False, True, False] and not rows.loc["iclr", "within_stated_budget"]
    if n == 5:
        # Unanimous correct non-private votes; collapsed private teachers are right only on class 8.
        assert rows.loc["stated", "sub_expected"] == pytest.approx(np.mean(truth[~mask] == 8))
        assert rows.loc["good", "opt_expected"] > rows.loc["stated", "opt_expected"]
        gap = rows.opt_expected - rows.gnmax_expected
        np.testing.assert_allclose(rows.opt_minus_gnmax_expected, gap)
        assert rows.loc["good", "opt_minus_gnmax_expected_seed_sd"] > 0
    else:
        assert rows.opt_minus_gnmax_expected.isna().all()


def test_the_choice_never_sees_the_query_part(monkeypatch):
    """Negative control: a configuration right on every query image and wrong on every validation
    image is not chosen, although its reported (query-part) accuracy is the highest."""
    pytest.importorskip("opacus", reason="the authors' calibration is Opacus' (extra 'learning')")
    truth = np.random.default_rng(4).choice([5, 8], size=200)
    pipeline = {"votes": np.tile(truth, (5, 1)), "labels": truth, "test_index": np.arange(200)}
    settings = synthetic_settings(2, seeds=1)
    trained = trained_configurations(settings, truth, pipeline, {"good": 0.9, "iclr": 1.0}, monkeypatch)
    mask = choice.validation_mask(200, 0.5, seed=1, dataset="toy")
    stated, rows = trained["stated"]
    cheat = np.where(mask, np.where(truth == 5, 8, 5), truth)
    trained["stated"] = ({**stated, "votes": np.tile(cheat, (1, 2, 1))}, rows)
    table = choice.ablation_table(trained, settings, {"private": pipeline, "nonprivate": pipeline}, seed=1)
    rows = table.set_index("config")
    assert rows.loc["stated", "accuracy_mean"] == 1.0 and rows.loc["stated", "validation_accuracy_mean"] == 0.0
    assert not rows.loc["stated", "best"] and rows.loc["good", "best"]


def test_best_configuration_is_completed_to_k_teachers_in_every_seed(monkeypatch):
    pytest.importorskip("opacus", reason="the authors' calibration is Opacus' (extra 'learning')")
    truth = np.array([5, 8] * 50)
    requested = []
    fake = fake_training(truth, np.tile(truth, (5, 1)), {"good": 0.9, "iclr": 1.0})

    def recording(files, settings, config, indices, seed, threads=1, replicate=0):
        requested.append((config["name"], list(indices), replicate))
        return fake(files, settings, config, indices, seed, threads, replicate)

    monkeypatch.setattr(ablation, "train_configuration", recording)
    settings = synthetic_settings(2)
    arrays = {"votes": np.tile(truth, (2, 2, 1)), "labels": truth, "test_index": np.arange(100)}
    private, _ = ablation.best_configuration_votes({}, settings, "good", arrays, seed=1)
    assert requested == [("good", [2, 3, 4], 0), ("good", [2, 3, 4], 1)] and private["votes"].shape == (2, 5, 100)


def test_seed_mean_table_intervals_are_over_seeds():
    """The gaps of three seeds (0.1, 0.2, 0.3): mean 0.2, Student-t interval with 2 degrees of
    freedom, 0.2 ± 4.303·0.1/√3; the query draws' own spread does not enter."""
    tables = [
        pd.DataFrame(
            {
                "dataset": ["toy"],
                **{f"{b}_minus_{w}": [g] for b, w in prediction.GAPS},
                **{f"{b}_minus_{w}_{e}": [0.0] for b, w in prediction.GAPS for e in ("ci_low", "ci_high")},
                "draws": [10],
            }
        )
        for g in (0.1, 0.2, 0.3)
    ]
    table = choice.seed_mean_table(tables)
    half = 4.302652729911275 * 0.1 / np.sqrt(3)
    assert table.opt_minus_gnmax.item() == pytest.approx(0.2) and table.runs.item() == 3
    assert table.opt_minus_gnmax_ci_low.item() == pytest.approx(0.2 - half)
    assert table.opt_minus_gnmax_ci_high.item() == pytest.approx(0.2 + half)
    assert np.isnan(choice.seed_mean_table(tables[:1]).opt_minus_gnmax_ci_low.item())


def test_unavailable_dataset_gives_rows_that_say_why():
    settings = synthetic_settings(2)
    table = choice.ablation_table(None, settings, None, seed=1, status="needs download: toy")
    assert table.config.tolist() == ["stated", "good", "iclr"] and (table.data_status == "needs download: toy").all()
    assert not table.best.any()
    assert ablation.ablation_ledger(None).empty  # nothing was trained, nothing spent


# --------------------------------------------------------------------------- real DP-SGD on toy IDX files


def write_idx(path, magic, shape, payload):
    path.write_bytes(struct.pack(">I", magic) + struct.pack(f">{len(shape)}I", *shape) + payload.tobytes())
    return path


@pytest.fixture
def toy_files(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    files = {}
    for split, n in (("train", 96), ("test", 30)):
        images_name, labels_name = darrm_teachers.SPLITS[split]
        files[images_name] = write_idx(
            tmp_path / images_name, 0x803, (n, 28, 28), rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        )
        files[labels_name] = write_idx(tmp_path / labels_name, 0x801, (n,), rng.choice([5, 8], size=n).astype(np.uint8))
    entries = tuple(DataFile(name, "file:///nowhere", content_sha256(path)) for name, path in files.items())
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", entries, "citation", "licence"))
    return files


def test_stated_configuration_reproduces_the_pipelines_teachers(toy_files, dp_sgd):
    """Same shards, seeds and plan: the ablation's stated teachers vote exactly as teacher_votes'
    (what the table's votes_as_pipeline checks on the real data) and spend what they spend, at most
    the plan's ε at Δ; SGD changes the votes."""
    settings = {**synthetic_settings(3), "teachers": 3, "datasets": {"toy": {"epsilon_teacher": 1.0}}}
    pipeline, pipeline_rows = darrm_teachers.teacher_votes(toy_files, "toy", "private", settings, seed=4)
    stated = settings["ablation"]["configs"][0]
    plan, votes, (labels, _), rows = ablation.train_configuration(toy_files, settings, stated, range(3), seed=4)
    np.testing.assert_array_equal(votes, pipeline["votes"])
    assert plan.noise_multiplier == settings["noise_multiplier"] and [r["teacher"] for r in rows] == [0, 1, 2]
    np.testing.assert_allclose([r["spent_epsilon"] for r in rows], pipeline_rows.spent_epsilon, rtol=1e-12)
    trained = {"stated": (None, pd.DataFrame([{**ablation.plan_fields(plan), **row} for row in rows]))}
    ledger = ablation.ablation_ledger(trained)
    assert ledger.releases.item() == 3 and ledger.mechanisms.item() == "dp_sgd"
    assert ledger.ledger_error.item() <= 1e-9 and 0 < ledger.spent_share.item() <= 1 + 1e-9
    sgd = {**stated, "optimizer": "sgd", "learning_rate": 10.0}
    _, sgd_votes, _, _ = ablation.train_configuration(toy_files, settings, sgd, range(3), seed=4)
    assert not np.array_equal(sgd_votes, votes)
    replicate, _ = darrm_teachers.teacher_votes(toy_files, "toy", "private", settings, seed=4, replicate=1)
    _, replicate_votes, _, rows = ablation.train_configuration(
        toy_files, settings, stated, range(3), seed=4, replicate=1
    )
    np.testing.assert_array_equal(replicate_votes, replicate["votes"])
    assert [r["replicate"] for r in rows] == [1, 1, 1]


def test_the_best_configurations_table_is_computed_on_the_query_part_over_its_seeds():
    """Pool of 200: the table's pool is the 100 query images, never the validation part, and its
    ``runs`` are the seed replicates whose per-seed gaps give the interval."""
    truth = np.random.default_rng(6).choice([5, 8], size=200)
    arrays = {"labels": truth, "test_index": np.arange(200)}
    votes = np.stack([np.tile(np.where(np.random.default_rng(r).random(200) < 0.8, truth, 8), (5, 1)) for r in (0, 1)])
    settings = {
        **CONFIG["private_prediction"],
        "datasets": {"toy": {"epsilon_teacher": 0.2}},
        "teachers": 5,
        "ms": [3],
        "queries": [20],
        "solver": "highs",
        "ablation": {**synthetic_settings(5)["ablation"]},
    }
    table = pd.DataFrame({"config": ["stated", "good"], "best": [False, True]})
    nonprivate = {**arrays, "votes": np.tile(truth, (5, 1))}
    accuracy, trained, releases = choice.best_configuration_accuracy(
        {}, settings, table, {**arrays, "votes": votes}, {"nonprivate": nonprivate}, {"toy": {}}, seed=1
    )
    row = accuracy.iloc[0]
    mask = choice.validation_mask(200, 0.5, seed=1, dataset="toy")
    assert trained == [] and row.config == "good" and row.pool == 100 and row.runs == 2
    assert row.teachers_accuracy_mean == pytest.approx(np.mean(votes[..., ~mask] == truth[~mask]))
    assert row.opt_minus_gnmax_ci_low < row.opt_minus_gnmax < row.opt_minus_gnmax_ci_high
