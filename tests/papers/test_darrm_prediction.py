"""DaRRM private prediction (spec §3, §6.11–6.14): the accountants against Opacus and the spec,
GNMax's σ table and an exact (ε, δ) audit, the accuracy pipeline on synthetic votes, the IDX
reader and the MNIST / Fashion-MNIST data layer (corrupt files rejected, missing ones reported
as needing a download), and a few DP-SGD steps of the teacher trainer."""

import gzip
import importlib
import json
import math
import os
import shutil
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from dpreplication.accounting import rdp
from dpreplication.accounting.composition import advanced_composition
from dpreplication.data import DATASETS, DataIntegrityError, fetch
from dpreplication.data.catalog import DataFile, Dataset
from dpreplication.data.fetch import MIRROR_ENV, availability, content_sha256
from dpreplication.data.idx import IDXFormatError, load_image_classification, read_idx_images, read_idx_labels
from dpreplication.mechanisms import gnmax, majority_utility
from dpreplication.mechanisms import majority as mj
from dpreplication.mechanisms.additive import gaussian_privacy_profile
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.darrm import prediction as dp
from dpreplication.replications.darrm import teacher_quality
from dpreplication.replications.darrm import teachers as darrm_teachers
from dpreplication.scorecard import Claim, evaluate_claims

fetch_module = importlib.import_module("dpreplication.data.fetch")  # the package re-exports a function `fetch`
REPO = Path(__file__).resolve().parents[2]
LABELS = "train-labels-idx1-ubyte"
SOLVER = profile_config("default", REPO)["darrm"]["solver"]
SETTINGS = profile_config("default", REPO)["darrm"]["private_prediction"]

# Spec §3 table: dataset, m, ε_agg, δ_agg, σ, λ*, Pr[GNMax correct | 11–0 vote], ε_tot and δ_tot at Q = 100.
SPEC_GNMAX = [
    ("mnist", 1, 0.0892, 1e-4, 68.21, 208, 0.545, 4.66, 0.0101),
    ("mnist", 3, 0.2676, 3e-4, 21.46, 62, 0.641, 19.70, 0.0301),
    ("mnist", 7, 0.6244, 7e-4, 8.815, 25, 0.811, 80.94, 0.0701),
    ("fashion_mnist", 3, 0.2556, 3e-4, 22.46, 65, 0.635, 18.41, 0.0301),
    ("fashion_mnist", 7, 0.5964, 7e-4, 9.221, 26, 0.801, 74.24, 0.0701),
]


# --------------------------------------------------------------------------- accountants


@pytest.mark.parametrize("q, sigma, steps", [(1 / 32, 10.0, 96), (1 / 35, 10.0, 115), (0.01, 1.1, 1000), (0.2, 2.0, 7)])
def test_sampled_gaussian_rdp_matches_opacus(q, sigma, steps):
    pytest.importorskip("opacus", reason="the Opacus oracle is absent (extra 'learning')")
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    orders = np.arange(2, 256)
    ours = rdp.sampled_gaussian_rdp(q, sigma, steps, orders)
    theirs = compute_rdp(q=q, noise_multiplier=sigma, steps=steps, orders=orders)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-14)
    assert rdp.rdp_to_epsilon(ours, orders, 1e-5)[0] == pytest.approx(
        get_privacy_spent(orders=orders, rdp=theirs, delta=1e-5)[0], rel=1e-9
    )


def test_full_batch_rdp_is_the_gaussian_mechanism():
    orders = np.arange(2, 50)
    np.testing.assert_allclose(rdp.sampled_gaussian_rdp(1.0, 3.0, 5, orders), 5 * orders / 18.0)


def test_teacher_epsilon_matches_the_spec_and_opacus():
    """Spec §3: σ = 10, q = 32/1024, 3 epochs (96 steps), δ = 1e-4: about 0.085 with integer orders;
    Opacus' PRV accountant (its default) reports less. The ICLR script's 10 epochs at δ = 1e-3
    printed ε = 0.1075, which is the PRV accountant's value (the authors' accountant)."""
    pytest.importorskip("opacus", reason="the Opacus oracle is absent (extra 'learning')")
    assert rdp.dp_sgd_epsilon(10.0, 1 / 32, 96, 1e-4) == pytest.approx(0.085, abs=5e-4)
    assert rdp.opacus_epsilon(10.0, 1 / 32, 96, 1e-4) < rdp.dp_sgd_epsilon(10.0, 1 / 32, 96, 1e-4)
    assert rdp.opacus_epsilon(10.0, 1 / 32, 320, 1e-3) == pytest.approx(0.1075, abs=5e-4)


@pytest.mark.parametrize("dataset, shard", [("mnist", 1024), ("fashion_mnist", 1090)])
def test_calibrated_steps_are_the_most_within_the_stated_epsilon(dataset, shard):
    target = SETTINGS["datasets"][dataset]["epsilon_teacher"]
    q = 1.0 / -(-shard // 32)
    steps = rdp.calibrate_steps(target, 1e-4, 10.0, q)
    assert rdp.dp_sgd_epsilon(10.0, q, steps, 1e-4) <= target < rdp.dp_sgd_epsilon(10.0, q, steps + 1, 1e-4)
    assert 3.0 <= steps * q <= 3.5, "the spec: about 3 epochs"


def test_calibrated_steps_reach_the_step_limit_and_refuse_only_beyond_it():
    """The search finds T* when max_steps/2 < T* ≤ max_steps (the doubling once overshot and
    refused), and refuses exactly when max_steps + 1 steps still fit."""
    q, target = 1 / 32, 0.0892
    best = rdp.calibrate_steps(target, 1e-4, 10.0, q)
    assert best > 8
    for limit in (best, best + 1, 2 * best - 1):
        assert rdp.calibrate_steps(target, 1e-4, 10.0, q, max_steps=limit) == best
    with pytest.raises(ValueError, match=f"more than {best - 1} steps"):
        rdp.calibrate_steps(target, 1e-4, 10.0, q, max_steps=best - 1)


def test_rdp_conversion_refuses_an_optimum_on_the_largest_order():
    orders = np.arange(2, 6)
    with pytest.raises(ValueError, match="largest"):
        rdp.rdp_to_epsilon(rdp.sampled_gaussian_rdp(1 / 32, 10.0, 96, orders), orders, 1e-4)


# --------------------------------------------------------------------------- GNMax


@pytest.mark.parametrize("dataset, m, epsilon, delta, sigma, order, unanimous, epsilon_total, delta_total", SPEC_GNMAX)
def test_gnmax_sigma_table(dataset, m, epsilon, delta, sigma, order, unanimous, epsilon_total, delta_total):
    """Spec §6.11 (and the §3 table): σ, λ*, Φ(11/(√2σ)) and the totals over Q = 100."""
    calibration = rdp.gnmax_noise_scale(epsilon, delta)
    assert calibration.sigma == pytest.approx(sigma, abs=0.01 if sigma > 10 else 0.001)
    assert abs(calibration.order - order) <= 0.5
    assert rdp.gnmax_epsilon(calibration.sigma, delta, calibration.order) == pytest.approx(epsilon, rel=1e-12)
    assert special.ndtr(11 / (np.sqrt(2) * calibration.sigma)) == pytest.approx(unanimous, abs=1e-3)
    total = advanced_composition(epsilon, delta, 100, 1e-4)
    assert total[0] == pytest.approx(epsilon_total, abs=0.01) and total[1] == pytest.approx(delta_total, abs=1e-9)


def test_privacy_table_of_the_config_reproduces_the_spec():
    table = dp.privacy_table(SETTINGS, SOLVER).set_index(["dataset", "m", "queries"])
    for dataset, m, _, _, sigma, _, unanimous, epsilon_total, _ in SPEC_GNMAX:
        row = table.loc[(dataset, m, 100)]
        assert row.gnmax_sigma == pytest.approx(sigma, abs=0.01)
        assert row.gnmax_unanimous_accuracy == pytest.approx(unanimous, abs=1e-3)
        assert row.epsilon_total == pytest.approx(epsilon_total, abs=0.01)
        assert row.gamma_opt_violation <= 1e-12
    assert table.loc[("mnist", 7, 100)].gamma_opt_minus_majority <= 1e-9, "spec: γ_opt ≡ 1 at m = 7 (K = 11)"


@pytest.mark.parametrize("epsilon, delta", [(row[2], row[3]) for row in SPEC_GNMAX])
def test_gnmax_is_private_on_neighbouring_vote_vectors(epsilon, delta):
    """Exact (ε, δ) audit. One teacher changing its vote moves the count vector by √2 in L2, so the
    released noisy counts are the Gaussian mechanism: its exact privacy profile (Balle & Wang 2018)
    at ε must be at most δ for the RDP-calibrated σ — and is not for half that σ (the audit can
    fail). The two-class argmax, post-processing, is checked on every neighbouring pair of votes."""
    sigma = rdp.gnmax_noise_scale(epsilon, delta).sigma
    assert gaussian_privacy_profile(epsilon, sigma, np.sqrt(2)) <= delta
    assert gaussian_privacy_profile(epsilon, sigma / 2, np.sqrt(2)) > delta
    K = 11
    counts = np.array([(n, K - n) for n in range(K + 1)], dtype=float)
    neighbours = [
        (counts[1:], counts[:-1]),  # a vote moves class 1 → class 0
        (counts[1:], counts[1:] - [[1, 0]]),
    ]  # a vote moves class 0 → elsewhere
    for a, b in neighbours:
        p, q = gnmax.gnmax_probability_first(a, sigma), gnmax.gnmax_probability_first(b, sigma)
        for x, y in ((p, q), (q, p), (1 - p, 1 - q), (1 - q, 1 - p)):
            assert np.max(x - np.exp(epsilon) * y) <= delta


# --------------------------------------------------------------------------- accuracy pipeline (spec §6.14)


def synthetic_votes(accuracy, n, rng, K=11, classes=(5, 8)):
    """Teachers vote the true class independently with probability ``accuracy``, else the other one."""
    truth = np.where(rng.random(n) < 0.5, classes[0], classes[1])
    other = np.where(truth == classes[0], classes[1], classes[0])
    return np.where(rng.random((K, n)) < accuracy, truth, other), truth


@pytest.mark.parametrize("accuracy, m", [(0.7, 3), (0.9, 1), (0.6, 7)])
def test_accuracy_pipeline_on_synthetic_votes(accuracy, m):
    """Spec §6.14: with i.i.d. teachers of accuracy a, each aggregator's accuracy is
    Σ_l Bin(l; 11, a)[γ(l)1{l>5} + (1 − γ(l))/2] (γ_Sub for subsampling, γ_opt for DaRRM_opt),
    and GNMax on unanimous correct votes is Φ(11/(√2σ)); the pool averages and the simulated
    draws agree with it within Monte-Carlo error."""
    rng = np.random.default_rng(7)
    classes = [5, 8]
    private, truth = synthetic_votes(accuracy, 40_000, rng)
    nonprivate = truth[None, :].repeat(11, axis=0)
    epsilon, delta = dp.query_budget(SETTINGS, "mnist", m)
    sigma = rdp.gnmax_noise_scale(epsilon, delta).sigma
    gamma = dp.gamma_opt(SETTINGS, "mnist", m, SOLVER)
    exact = dp.expected_accuracies(private, nonprivate, truth, classes, m, sigma, gamma)
    analytic = {
        "gnmax": special.ndtr(11 / (np.sqrt(2) * sigma)),
        "sub": majority_utility.expected_accuracy(mj.gamma_subsampling(11, m), accuracy),
        "opt": majority_utility.expected_accuracy(gamma, accuracy),
    }
    voters = {"voter_epsilon": SETTINGS["datasets"]["mnist"]["epsilon_teacher"], "voter_delta": SETTINGS["Delta"]}
    simulated, _ = dp.simulate_queries(
        private,
        nonprivate,
        truth,
        classes,
        m,
        2_000,
        20,
        sigma,
        gamma,
        seed=3,
        dataset="synthetic",
        **voters,
        delta_prime=SETTINGS["delta_prime"],
    )
    for method, value in analytic.items():
        assert exact[method].mean() == pytest.approx(value, abs=4.5 * np.sqrt(0.25 / truth.size) + 1e-12), method
        assert abs(simulated[method].mean() / 2_000 - value) <= 4.5 * np.sqrt(value * (1 - value) / 40_000), method


def test_accuracy_table_z_scores_and_gaps_are_consistent():
    rng = np.random.default_rng(8)
    private, truth = synthetic_votes(0.85, 1_500, rng)
    nonprivate, _ = synthetic_votes(0.99, 1_500, np.random.default_rng(8))
    arrays = {"labels": truth, "test_index": np.arange(truth.size)}
    votes = {"mnist": {"private": {**arrays, "votes": private}, "nonprivate": {**arrays, "votes": nonprivate}}}
    settings = {**SETTINGS, "datasets": {"mnist": SETTINGS["datasets"]["mnist"]}, "ms": [3], "queries": [100]}
    row = dp.accuracy_table(votes, {}, settings, seed=1, solver=SOLVER)[0].iloc[0]
    assert row.opt_minus_sub == pytest.approx(row.opt_mean - row.sub_mean)
    assert row.gnmax_z == pytest.approx((row.gnmax_mean - row.gnmax_expected) / (row.gnmax_std / np.sqrt(10)))
    assert row.data_status == "" and row.pool == 1_500 and 0.5 < row.opt_expected <= 1


def test_the_seed_replicates_teachers_have_one_ledger_row_each(tmp_path):
    """Every teacher of every replicate is a row of the seeds table's ledger, against its reported ε."""
    paths = []
    for replicate in range(2):
        by_kind = {}
        for kind, stated, spent in (("private", 0.0886, 0.0886), ("nonprivate", math.nan, math.inf)):
            frame = pd.DataFrame({"dataset": "mnist", "kind": kind, "teacher": [0, 1], "epsilon": stated,
                                  "spent_epsilon": spent, "spent_delta": 1e-4, "draws": 104, "mechanisms": "dp_sgd"})  # fmt: skip
            by_kind[kind] = tmp_path / f"{kind}_{replicate}.csv"
            frame.to_csv(by_kind[kind], index=False)
        paths.append(by_kind)
    ledger = teacher_quality.replicates_ledger({"mnist": paths})
    assert len(ledger) == 8 and sorted(set(ledger.replicate)) == [0, 1] and ledger.ledger_error.max() == 0
    assert teacher_quality.replicates_ledger({}).empty


def test_seed_spread_table_averages_the_replicates_and_states_their_spread():
    """Three replicates of teachers of accuracy 0.8, 0.85 and 0.9: the per-replicate rows are each
    ensemble's exact expectations, the "all" row their mean and sample std (NaN with one seed)."""
    arrays = {}
    replicates = []
    for accuracy in (0.8, 0.85, 0.9):
        private, truth = synthetic_votes(accuracy, 1_000, np.random.default_rng(9))
        nonprivate, _ = synthetic_votes(0.99, 1_000, np.random.default_rng(9))
        arrays = {"labels": truth, "test_index": np.arange(truth.size)}
        replicates.append({"private": {**arrays, "votes": private}, "nonprivate": {**arrays, "votes": nonprivate}})
    settings = {**SETTINGS, "datasets": {"mnist": SETTINGS["datasets"]["mnist"]}, "ms": [3]}
    table = dp.seed_spread_table({"mnist": replicates}, {}, settings, SOLVER)
    assert table.replicate.tolist() == ["0", "1", "2", "all"]
    summary, seeds = table.iloc[-1], table.iloc[:3]
    for method in dp.METHODS:
        assert summary[f"{method}_expected"] == pytest.approx(seeds[f"{method}_expected"].mean())
        assert summary[f"{method}_expected_seed_sd"] == pytest.approx(seeds[f"{method}_expected"].std(ddof=1))
    assert seeds.sub_expected.is_monotonic_increasing and summary.seeds == 3
    assert summary.sub_expected_seed_sd > 0.01  # the teachers' draw moves the expectation
    one = dp.seed_spread_table({"mnist": replicates[:1]}, {}, settings, SOLVER).iloc[-1]
    assert one.seeds == 1 and np.isnan(one.opt_expected_seed_sd)
    missing = dp.seed_spread_table({}, {"mnist": {"missing": {"f": "gone"}}}, settings, SOLVER)
    assert missing.replicate.tolist() == ["all"] and missing.data_status.item().startswith("needs download")


def test_replicate_seeds_are_new_draws_and_replicate_0_is_the_pipelines():
    first = darrm_teachers.teacher_seed(3, "mnist", "private", 4)
    assert darrm_teachers.teacher_seed(3, "mnist", "private", 4, replicate=0) == first
    others = {darrm_teachers.teacher_seed(3, "mnist", "private", 4, replicate=r) for r in (1, 2)}
    assert len(others) == 2 and first not in others


# --------------------------------------------------------------------------- teachers


def test_shards_are_the_authors_contiguous_split():
    shards = darrm_teachers.teacher_shards(11_272, 11)
    assert [stop - start for start, stop in shards] == [1024] * 10 + [1032]
    assert darrm_teachers.teacher_shards(11_272, 11, remainder="drop")[-1] == (10_240, 11_264)
    assert darrm_teachers.teacher_shards(11_272, 11, shard_size=100)[-1] == (1_000, 1_100)
    with pytest.raises(ValueError, match="do not fit"):
        darrm_teachers.teacher_shards(100, 11, shard_size=10)


def test_dp_sgd_steps_are_seeded_and_counted(dp_sgd):
    """A few DP-SGD steps on random images: Opacus samples at rate 1/⌈n/B⌉, takes exactly the
    requested steps, and the same seed gives the same weights and votes."""
    torch = dp_sgd
    from dpreplication.learning import teachers

    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(96, 28, 28), dtype=np.uint8)
    labels = rng.choice([5, 8], size=96)
    device = torch.device("cpu")
    teachers.configure_torch(1)
    runs = [teachers.train_private(images, labels, 5, 10.0, 1.0, 0.01, 32, 11, device) for _ in range(2)]
    assert runs[0][1].steps == 5 and runs[0][1].sample_rate == teachers.poisson_sample_rate(96, 32) == 1 / 3
    for a, b in zip(runs[0][0].parameters(), runs[1][0].parameters()):
        assert torch.equal(a, b)
    votes = teachers.predict(runs[0][0], images, device)
    assert votes.shape == (96,) and votes.dtype == np.int8 and set(np.unique(votes)) <= set(range(10))
    model, record = teachers.train_nonprivate(images, labels, 1, 0.01, 32, 11, device)
    assert record.steps == 3 and isinstance(model, teachers.TeacherCNN)


def toy_teacher_files(tmp_path, monkeypatch):
    """Synthetic IDX files of a dataset "toy" (120 training, 40 test images of classes 3, 5, 8)."""
    rng = np.random.default_rng(1)
    files = {}
    for split, n in (("train", 120), ("test", 40)):
        images_name, labels_name = darrm_teachers.SPLITS[split]
        labels = rng.choice([3, 5, 8], size=n).astype(np.uint8)
        files[images_name] = write_idx(
            tmp_path / images_name, 0x803, (n, 28, 28), rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        )
        files[labels_name] = write_idx(tmp_path / labels_name, 0x801, (n,), labels)
    entries = tuple(DataFile(name, "file:///nowhere", content_sha256(path)) for name, path in files.items())
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", entries, "citation", "licence"))
    return files


def test_teacher_votes_on_a_toy_dataset(tmp_path, monkeypatch, dp_sgd):
    """The orchestration end to end on synthetic IDX files: shards, calibrated steps within the
    stated ε, votes for every two-class test image, and the config keys each kind depends on."""
    files = toy_teacher_files(tmp_path, monkeypatch)
    section = {**SETTINGS, "datasets": {"toy": {"epsilon_teacher": 0.5}}, "teachers": 3, "nonprivate_epochs": 1}
    for kind in darrm_teachers.KINDS:
        settings = darrm_teachers.teacher_settings(section, "toy", kind)
        assert "queries" not in settings and ("nonprivate_epochs" in settings) == (kind == "nonprivate")
        arrays, table = darrm_teachers.teacher_votes(files, "toy", kind, settings, seed=2)
        n_test = int(np.isin(read_idx_labels(files["t10k-labels-idx1-ubyte"]), [5, 8]).sum())
        assert arrays["votes"].shape == (3, n_test) and np.isin(arrays["labels"], [5, 8]).all()
        assert table.shard_size.tolist()[:2] == [table.shard_size.iloc[0]] * 2 and len(table) == 3
        if kind == "private":
            assert (table.epsilon <= 0.5).all() and table.steps.nunique() == 1
            assert rdp.dp_sgd_epsilon(10.0, table.sample_rate.max(), int(table.steps.iloc[0]) + 1, 1e-4) > 0.5
        else:
            assert table.epsilon.isna().all()


@pytest.mark.parametrize("budget", [math.nan, math.inf, -0.1])
def test_private_steps_refuse_a_non_finite_teacher_budget(budget):
    """Before, a NaN budget passed: with ``private_steps`` set any number of steps came back, and the
    calibration returned 1 step (NaN fails every ``ε > budget`` test)."""
    settings = {"Delta": 1e-4, "noise_multiplier": 10.0}
    for steps in (10**6, None):
        with pytest.raises(ValueError, match=f"epsilon_teacher must be positive and finite, got {budget}"):
            darrm_teachers.private_steps({**settings, "private_steps": steps}, budget, 1 / 32)


def test_teacher_votes_refuse_a_teacher_whose_epsilon_is_nan(tmp_path, monkeypatch, dp_sgd):
    """The over-budget guard fails on NaN: before, ``ε > budget`` was false for ε = NaN and the
    teacher's votes were kept."""
    from dpreplication.learning.teachers import TrainingRecord

    files = toy_teacher_files(tmp_path, monkeypatch)
    section = {**SETTINGS, "datasets": {"toy": {"epsilon_teacher": 0.5}}, "teachers": 3, "private_steps": 1}
    record = TrainingRecord(1, 1 / 3, 1 / 3, 0.0)
    monkeypatch.setattr(darrm_teachers, "_train_teacher", lambda *args: (None, record, math.nan, math.nan))
    settings = darrm_teachers.teacher_settings(section, "toy", "private")
    with pytest.raises(ValueError, match=r"DP-SGD teacher 0 of toy spends ε = nan, over its budget ε = 0.5"):
        darrm_teachers.teacher_votes(files, "toy", "private", settings, seed=2)


# --------------------------------------------------------------------------- IDX files and the data layer


def write_idx(path, magic, shape, payload=None):
    data = np.zeros(shape, dtype=np.uint8) if payload is None else payload
    path.write_bytes(struct.pack(">I", magic) + struct.pack(f">{len(shape)}I", *shape) + data.tobytes())
    return path


def test_idx_reader_reads_images_and_labels(tmp_path):
    images = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    x, y = load_image_classification(
        write_idx(tmp_path / "x", 0x803, (2, 28, 28), images),
        write_idx(tmp_path / "y", 0x801, (2,), np.array([5, 8], np.uint8)),
    )
    assert np.array_equal(x, images) and y.tolist() == [5, 8]


@pytest.mark.parametrize(
    "corruption, message",
    [
        (lambda p: write_idx(p, 0x801, (2, 28, 28)), "magic number 0x00000801, expected 0x00000803"),
        (lambda p: write_idx(p, 0x803, (2, 27, 28)), r"items of shape \(27, 28\)"),
        (lambda p: p.write_bytes(write_idx(p, 0x803, (2, 28, 28)).read_bytes()[:-1]), "implies 1584"),
        (lambda p: p.write_bytes(b"\x00\x00\x08"), "too short"),
    ],
)
def test_corrupt_idx_files_are_rejected_naming_the_file(tmp_path, corruption, message):
    path = tmp_path / "images-idx3"  # not a catalogue name: the IDX reader itself is under test
    corruption(path)
    with pytest.raises(IDXFormatError, match=message) as error:
        read_idx_images(path)
    assert str(path) in str(error.value)


def test_idx_label_and_image_counts_must_agree(tmp_path):
    with pytest.raises(IDXFormatError, match="3 labels"):
        load_image_classification(write_idx(tmp_path / "x", 0x803, (2, 28, 28)), write_idx(tmp_path / "y", 0x801, (3,)))
    with pytest.raises(IDXFormatError, match="magic"):
        read_idx_labels(write_idx(tmp_path / "z", 0x803, (2, 28, 28)))


@pytest.fixture
def shared_mirror():
    mirror = Path(os.environ.get(MIRROR_ENV, ""))
    if not (mirror / "mnist").is_dir() or not (mirror / "fashion-mnist").is_dir():
        pytest.skip("no MNIST / Fashion-MNIST mirror available")
    return mirror


def test_mnist_plain_and_gzip_mirror_files_verify_and_load(shared_mirror, tmp_path):
    """The mirror stores MNIST's training labels as plain IDX and the rest as gzip re-compressions:
    both are accepted by the SHA256 of the decompressed content; Fashion-MNIST lives in the
    mirror's ``fashion-mnist/`` directory."""
    files = {}
    for name in darrm_teachers.SPLITS["test"] + (LABELS,):
        files[name] = fetch("mnist", name, tmp_path / "mnist" / name, shared_mirror)
    x, y = load_image_classification(files["t10k-images-idx3-ubyte"], files["t10k-labels-idx1-ubyte"])
    assert x.shape == (10_000, 28, 28) and np.isin(y, [5, 8]).sum() == 1_866
    assert read_idx_labels(files[LABELS]).shape == (60_000,)
    labels = fetch("fashion_mnist", "t10k-labels-idx1-ubyte", tmp_path / "f" / "labels", shared_mirror)
    assert np.isin(read_idx_labels(labels), [5, 8]).sum() == 2_000


def test_wrong_checksum_is_rejected_with_the_file_and_expected_hash(shared_mirror, tmp_path):
    mirror = tmp_path / "mirror" / "mnist"
    mirror.mkdir(parents=True)
    with gzip.open(shared_mirror / "mnist" / "t10k-labels-idx1-ubyte.gz") as source:
        data = bytearray(source.read())
    data[100] ^= 1  # a label changes; the IDX header is still valid
    (mirror / "t10k-labels-idx1-ubyte").write_bytes(bytes(data))
    expected = DATASETS["mnist"].file("t10k-labels-idx1-ubyte").sha256
    assert availability("mnist", tmp_path / "raw", tmp_path / "mirror")["files"], "present, so not 'unavailable'"
    destination = tmp_path / "raw" / "mnist" / "t10k-labels-idx1-ubyte"
    with pytest.raises(DataIntegrityError, match="corrupt") as error:
        fetch("mnist", "t10k-labels-idx1-ubyte", destination, tmp_path / "mirror")
    assert "t10k-labels-idx1-ubyte" in str(error.value) and expected in str(error.value)
    assert not destination.exists()
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(mirror / "t10k-labels-idx1-ubyte", destination)
    images = fetch("mnist", "t10k-images-idx3-ubyte", tmp_path / "raw" / "mnist" / "images", shared_mirror)
    placed_by_hand = {"t10k-images-idx3-ubyte": images, "t10k-labels-idx1-ubyte": destination}
    with pytest.raises(DataIntegrityError, match=expected):
        darrm_teachers.two_class_split(placed_by_hand, "mnist", "test", [5, 8])


def test_alternate_url_is_tried_when_the_canonical_one_fails(tmp_path, monkeypatch):
    source = write_idx(tmp_path / "labels", 0x801, (3,), np.array([5, 8, 5], np.uint8))
    with open(source, "rb") as plain, gzip.open(tmp_path / "labels.gz", "wb") as packed:
        shutil.copyfileobj(plain, packed)
    data_file = DataFile(
        "labels",
        (tmp_path / "gone.gz").as_uri(),
        content_sha256(source),
        alternate_urls=((tmp_path / "labels.gz").as_uri(),),
    )
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", (data_file,), "citation", "licence"))
    assert fetch("toy", "labels", tmp_path / "raw" / "labels").read_bytes() == source.read_bytes()
    monkeypatch.setitem(
        DATASETS,
        "toy",
        Dataset("toy", (DataFile("labels", (tmp_path / "gone").as_uri(), "0" * 64),), "citation", "licence"),
    )
    with pytest.raises(DataIntegrityError, match="could not download toy/labels"):
        fetch("toy", "labels", tmp_path / "raw" / "other")
    status = availability("toy", tmp_path / "raw2", None, timeout=1)
    assert not status["available"] and "gone" in status["missing"]["labels"]
    monkeypatch.setattr(fetch_module, "_url_responds", lambda url, timeout: None)
    assert availability("toy", tmp_path / "raw2", None)["available"]


# --------------------------------------------------------------------------- a dataset that cannot be had


def test_missing_dataset_gives_needs_download_rows_and_claims(tmp_path):
    (tmp_path / "empty").mkdir()
    status = availability("mnist", tmp_path / "raw", tmp_path / "empty")
    assert not status["available"] and set(status["missing"]) == {f.name for f in DATASETS["mnist"].files}
    status_file = tmp_path / "mnist.json"
    status_file.write_text(json.dumps(status))
    statuses = dp.read_statuses({"mnist": str(status_file)})
    votes, per_teacher = dp.read_votes({}), dp.read_teachers({})
    settings = {**SETTINGS, "datasets": {"mnist": SETTINGS["datasets"]["mnist"]}, "ms": [3], "queries": [100]}
    accuracy, releases = dp.accuracy_table(votes, statuses, settings, seed=1, solver=SOLVER)
    teachers = teacher_quality.teachers_table(per_teacher, statuses, settings)
    for table in (accuracy, teachers):
        assert table.data_status.str.startswith("needs download: mnist is not available").all()
    assert accuracy.opt_mean.isna().all() and accuracy.gnmax_sigma.notna().all()
    assert releases.empty and dp.query_ledger_table(releases).empty  # nothing was released
    path = tmp_path / "accuracy.csv"
    accuracy.to_csv(path, index=False)
    claim = Claim(
        id="c",
        paper="darrm",
        section="s",
        claim="x",
        expected=0.96,
        table="prediction_accuracy",
        column="opt_mean",
        select={"dataset": "mnist", "m": 3, "queries": 100},
        tolerance=0.01,
        kind="paper",
    )
    scored = evaluate_claims([claim], {"prediction_accuracy": pd.read_csv(path)})
    assert scored.status.tolist() == ["missing"] and scored.reason.iloc[0].startswith("needs download: mnist")
    sigma_claim = Claim(**{**claim.__dict__, "id": "d", "column": "gnmax_sigma", "expected": 21.46})
    assert evaluate_claims([sigma_claim], {"prediction_accuracy": accuracy}).status.tolist() == ["missing"]


@pytest.mark.workflow
def test_workflow_without_the_data_marks_the_cells_needing_a_download(tmp_path):
    """A checkout whose mirror lacks MNIST and Fashion-MNIST still builds the private-prediction
    tables: the analytic privacy table in full, the data-dependent rows marked "needs download"."""
    import subprocess
    import sys

    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in files:
        if (REPO / name).is_file() and not name.startswith(("figures/", "tests/references/")):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, tmp_path / name)
    (tmp_path / "empty").mkdir()
    env = {**os.environ, MIRROR_ENV: str(tmp_path / "empty"), "PYTHONPATH": str(tmp_path / "src")}
    tables = [f"results/quick/figures/darrm/prediction_{name}.csv" for name in ("accuracy", "teachers", "privacy")]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--cores",
            "2",
            "--quiet",
            "rules",
            "--max-jobs-per-timespan",  # a few jobs: no 10-s exit timer of the profile's rate limit
            "100/1s",
            "--config",
            "profile=quick",
            "--",
            *tables,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    accuracy, teachers, privacy = (pd.read_csv(tmp_path / table) for table in tables)
    for table in (accuracy, teachers):
        assert (
            table.data_status.str.startswith("needs download").all() and table.data_status.str.contains("mirror").all()
        )
    assert privacy.gnmax_sigma.notna().all() and not (tmp_path / "data" / "raw" / "mnist").exists()


def test_f10_variance_curve_has_its_minimum_at_the_calibrated_order():
    privacy = pd.DataFrame(
        {
            "dataset": ["mnist", "mnist"],
            "m": [3, 3],
            "epsilon_query": [0.2676, 0.2676],
            "delta_query": [3e-4, 3e-4],
            "gnmax_order": [np.nan, np.nan],
        }
    )
    calibration = rdp.gnmax_noise_scale(0.2676, 3e-4)
    privacy["gnmax_order"] = calibration.order
    table = dp.gnmax_variance_table(privacy, max_order=500)
    chosen = table[table.chosen]
    assert len(chosen) == 1 and chosen.variance.iloc[0] == pytest.approx(calibration.sigma**2)
    assert chosen.variance.iloc[0] == table.variance.min() and calibration.sigma == pytest.approx(21.46, abs=0.01)
    orders, variance = rdp.gnmax_variance_curve(0.2676, 3e-4)
    assert all(
        rdp.gnmax_epsilon(float(np.sqrt(v)), 3e-4, float(o)) == pytest.approx(0.2676) for o, v in zip(orders, variance)
    )


def test_teacher_diagnostics_count_votes_and_collapse():
    votes = {
        "toy": {
            "private": {"votes": np.array([[8, 8, 8, 8], [5, 8, 5, 8]]), "labels": np.array([5, 8, 5, 8])},
            "nonprivate": {"votes": np.array([[5, 8, 5, 8]]), "labels": np.array([5, 8, 5, 8])},
        }
    }
    settings = {"classes": [5, 8], "datasets": {"toy": {}, "gone": {}}}
    statuses = {"toy": {"available": True}, "gone": {"available": False, "missing": {"f": "not in the mirror"}}}
    table = teacher_quality.teacher_diagnostics(votes, statuses, settings).set_index(["dataset", "kind", "teacher"])
    collapsed = table.loc[("toy", "private", "0")]
    assert collapsed.accuracy == 0.5 and collapsed.rate_positive_class == 1.0 and collapsed.collapsed
    assert (collapsed.true_positive, collapsed.false_positive, collapsed.true_negative, collapsed.false_negative) == (
        2,
        2,
        0,
        0,
    )
    assert table.loc[("toy", "private", "1")].accuracy == 1.0 and not table.loc[("toy", "private", "1")].collapsed
    assert table.loc[("toy", "private", "all")].collapsed_teachers == 1
    assert table.loc[("gone", "private", "all")].data_status.startswith("needs download")
