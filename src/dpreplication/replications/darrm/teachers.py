"""DaRRM private prediction (spec §3): the teacher ensembles behind the cached vote matrices.

:func:`teacher_votes` trains the K teachers of one dataset on disjoint contiguous shards of its two
classes — privately (DP-SGD through Opacus, steps calibrated to the stated per-teacher ε) or not
(for GNMax) — and returns their votes on every two-class test image. Kept apart from the tables
(:mod:`dpreplication.replications.darrm.prediction`) so that the training rule depends only on
the data layer, the accountant and the trainer.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.accounting import rdp
from dpreplication.accounting.ledger import LEDGER_COLUMNS, spending
from dpreplication.data import DATASETS, verify
from dpreplication.data.idx import load_image_classification
from dpreplication.replications.darrm.rule_settings import KINDS, teacher_settings  # noqa: F401 (the shapes live there)
from dpreplication.validation import positive, within_budget

log = logging.getLogger(__name__)

PAPER = "darrm"
SPLITS = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
TEACHER_COLUMNS = [
    "dataset",
    "kind",
    "teacher",
    "shard_start",
    "shard_size",
    "steps",
    "epochs",
    "sample_rate",
    "epsilon",
    "epsilon_opacus_prv",
    "test_accuracy",
    "off_class_votes",
    *LEDGER_COLUMNS,
]


def two_class_split(files: dict, dataset: str, split: str, classes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Images, labels and original indices of the images of ``classes`` in one split.

    Parameters
    ----------
    files : dict
        Maps the catalogue's file names to local paths; each is re-verified against its SHA256 (a
        file placed by hand is checked too) and read with the IDX header checks.
    """
    paths = []
    for name in SPLITS[split]:
        paths.append(verify(files[name], DATASETS[dataset].file(name).sha256))
    images, labels = load_image_classification(*paths)
    index = np.flatnonzero(np.isin(labels, classes))
    return images[index], labels[index], index


def teacher_shards(
    n: int, teachers: int, shard_size: int | None = None, remainder: str = "last"
) -> list[tuple[int, int]]:
    """``K`` contiguous disjoint shards ``[start, stop)`` of ``n`` training images (spec §3).

    Parameters
    ----------
    shard_size : int or None
        ``None``: ``⌊n/K⌋`` each, the remainder going to the last shard (the authors' split). A given
        ``shard_size`` takes the first ``K·size`` images.
    remainder : str
        ``"drop"`` drops the remainder that ``shard_size=None`` gives to the last shard (``"last"``).
    """
    size = n // teachers if shard_size is None else int(shard_size)
    if size < 1 or teachers * size > n:
        raise ValueError(f"{teachers} shards of {size} images do not fit in {n} training images")
    shards = [(i * size, (i + 1) * size) for i in range(teachers)]
    if shard_size is None and remainder == "last":
        shards[-1] = (shards[-1][0], n)
    return shards


def teacher_seed(seed: int, dataset: str, kind: str, teacher: int, replicate: int = 0) -> int:
    """Return the torch seed of one teacher, from the config seed and the teacher's keys.

    ``replicate`` numbers independently seeded ensembles on the same shards; replicate 0 is the
    pipeline's (its key has no replicate word, so its votes are those cached before replicates).
    """
    keys = (PAPER, "teachers", dataset, kind, teacher) + (("replicate", int(replicate)) if replicate else ())
    return int(seeding.generator(seed, *keys).integers(2**62))


def training_data(files: dict, dataset: str, settings: dict) -> tuple[tuple, tuple, list[tuple[int, int]]]:
    """Load ``((x_train, y_train), (x_test, y_test, test_index), shards)``.

    The two-class training images (the first ``train_size`` if set), the test pool the teachers
    vote on, and the K shards.
    """
    classes = list(settings["classes"])
    x_train, y_train, _ = two_class_split(files, dataset, "train", classes)
    if settings.get("train_size") is not None:
        x_train, y_train = x_train[: settings["train_size"]], y_train[: settings["train_size"]]
    shards = teacher_shards(len(y_train), settings["teachers"], settings.get("shard_size"), settings["remainder"])
    return (x_train, y_train), two_class_split(files, dataset, "test", classes), shards


def private_steps(settings: dict, epsilon_teacher: float, sample_rate: float) -> int:
    """DP-SGD steps: ``private_steps`` if set, else the most steps with ε ≤ ``epsilon_teacher``.

    ``ValueError`` unless ``epsilon_teacher`` is positive and finite, also when the steps are set:
    a NaN budget would pass every later ``ε > budget`` comparison.
    """
    positive("epsilon_teacher", epsilon_teacher)
    if settings.get("private_steps") is not None:
        return int(settings["private_steps"])
    return rdp.calibrate_steps(epsilon_teacher, settings["Delta"], settings["noise_multiplier"], sample_rate)


def _train_teacher(x, y, kind: str, steps, settings: dict, seed: int, device):
    """One teacher: ``(model, record, ε, ε of Opacus' PRV accountant)``; ε is NaN without privacy."""
    from dpreplication.learning import teachers as learning

    if kind == "nonprivate":
        model, record = learning.train_nonprivate(
            x, y, settings["nonprivate_epochs"], settings["learning_rate"], settings["batch_size"], seed, device
        )
        return model, record, np.nan, np.nan
    sigma, delta = settings["noise_multiplier"], settings["Delta"]
    model, record = learning.train_private(
        x, y, steps, sigma, settings["max_grad_norm"], settings["learning_rate"], settings["batch_size"], seed, device
    )
    trained_with = (record.noise_multiplier, record.max_grad_norm, record.accountant_history)
    if trained_with != (sigma, settings["max_grad_norm"], ((sigma, record.sample_rate, record.steps),)):
        raise RuntimeError(f"Opacus trained with (σ, clip, history) = {trained_with}, not the accounted settings")
    return (
        model,
        record,
        rdp.dp_sgd_epsilon(sigma, record.sample_rate, record.steps, delta),
        rdp.opacus_epsilon(sigma, record.sample_rate, record.steps, delta),
    )


def teacher_votes(
    files: dict, dataset: str, kind: str, settings: dict, seed: int, threads: int = 1, replicate: int = 0
) -> tuple[dict, pd.DataFrame]:
    """Train the ``K`` teachers of ``dataset`` (``kind`` private or nonprivate) and collect their votes.

    ``replicate`` selects the teachers' seeds (:func:`teacher_seed`): the same shards and settings,
    an independent draw of the training randomness.

    Private teachers take the same number of steps, calibrated at the largest sampling rate of the
    shards, so each teacher's ε (logged, our RDP accountant; Opacus' PRV accountant alongside) is
    at most the stated ``epsilon_teacher``.

    Returns
    -------
    arrays : dict
        The arrays of the vote cache: ``votes`` ``(K, n_test)`` (class 0–9 per teacher and test
        image), ``labels`` and ``test_index`` of the two-class test pool.
    teachers : pandas.DataFrame
        One row per teacher (columns :data:`TEACHER_COLUMNS`).
    """
    from dpreplication.learning import teachers as learning

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    classes = list(settings["classes"])
    (x_train, y_train), (x_test, y_test, test_index), shards = training_data(files, dataset, settings)
    device = learning.configure_torch(threads)
    batch = settings["batch_size"]
    epsilon_target = settings["datasets"][dataset]["epsilon_teacher"] if kind == "private" else np.nan
    sample_rate = max(learning.poisson_sample_rate(stop - start, batch) for start, stop in shards)
    steps = private_steps(settings, epsilon_target, sample_rate) if kind == "private" else None
    log.info(
        "%s %s teachers on %d images (%s), test pool %d, device %s, steps %s",
        dataset,
        kind,
        len(y_train),
        shards,
        len(y_test),
        device,
        steps,
    )
    votes, rows = [], []
    budget = (epsilon_target, settings["Delta"]) if kind == "private" else (None, 0.0)
    for teacher, (start, stop) in enumerate(shards):
        x, y = x_train[start:stop], y_train[start:stop]
        with spending(*budget) as ledger:  # each teacher is one release of its shard
            model, record, epsilon, epsilon_prv = _train_teacher(
                x, y, kind, steps, settings, teacher_seed(seed, dataset, kind, teacher, replicate), device
            )
        if kind == "private":
            within_budget(f"DP-SGD teacher {teacher} of {dataset}", epsilon, epsilon_target, relative_slack=1e-12)
        prediction = learning.predict(model, x_test, device)
        votes.append(prediction)
        rows.append(
            (
                dataset,
                kind,
                teacher,
                start,
                stop - start,
                record.steps,
                record.epochs,
                record.sample_rate,
                epsilon,
                epsilon_prv,
                float(np.mean(prediction == y_test)),
                float(np.mean(~np.isin(prediction, classes))),
                *ledger.summary().values(),
            )
        )
        log.info(
            "%s %s teacher %d: %d steps in %.1fs, eps %.5f (Opacus PRV %.5f), test accuracy %.4f",
            dataset,
            kind,
            teacher,
            record.steps,
            record.seconds,
            epsilon,
            epsilon_prv,
            rows[-1][10],
        )
    arrays = {"votes": np.stack(votes), "labels": y_test, "test_index": test_index}
    return arrays, pd.DataFrame(rows, columns=TEACHER_COLUMNS)
