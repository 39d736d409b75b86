"""Batched job rules: a job runs consecutive repetitions, each seeded by its own index, so the
batch size changes the number of jobs and never a number (issue 16)."""

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dpreplication.data.tabular import TabularData
from dpreplication.pipeline.jobs import batch_labels, batch_repetitions, write_rows
from dpreplication.replications.privgene import jobs


def test_batch_labels_cover_every_repetition_once_in_order():
    assert batch_labels(16, 10) == ["0-9", "10-15"]
    assert batch_labels(3, 1) == ["0-0", "1-1", "2-2"]
    assert batch_labels(0, 10) == []
    for count, size in ((1, 10), (10, 10), (11, 10), (500, 25), (7, 3)):
        covered = [r for label in batch_labels(count, size) for r in batch_repetitions(label)]
        assert covered == list(range(count))
        assert all(len(batch_repetitions(label)) <= size for label in batch_labels(count, size))


@pytest.mark.parametrize("count, size", [(-1, 10), (5, 0)])
def test_batch_labels_reject_bad_sizes(count, size):
    with pytest.raises(ValueError, match="batch_labels"):
        batch_labels(count, size)


def test_batch_label_with_last_before_first_is_rejected():
    with pytest.raises(ValueError, match="precedes"):
        batch_repetitions("5-4")


def toy(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = (X @ np.arange(1, d + 1) + rng.normal(0, 1, n) > 0).astype(float)
    return TabularData("toy", X, y, tuple(f"x{i}" for i in range(d)), "synthetic")


def run_batches(directory, labels, job, **axes):
    """The rows a batched rule writes for ``labels`` (and ``axes``: the points are their product,
    the outer loop; the batch's repetitions the inner one), concatenated as its aggregation rule
    reads them."""
    directory.mkdir()
    points = [dict(zip(axes, values)) for values in itertools.product(*axes.values())]
    frames = []
    for label in labels:
        output = directory / f"reps{label}.csv"
        rule = SimpleNamespace(output=[output])
        write_rows(rule, [job(repetition, **point) for point in points for repetition in batch_repetitions(label)])
        frames.append(pd.read_csv(output))
    return pd.concat(frames, ignore_index=True)


def majority(data, repetition, task="lr", epsilon=0.5):
    job = jobs.reference(task, "Majority", epsilon=epsilon, folds=3)
    return jobs.run_job(data, job, repetition, seed=7)


def test_batch_size_changes_no_number(tmp_path):
    """Majority (a private release: each repetition draws from its own seeded stream) over four
    repetitions: one job of four, two of two and four of one write the same rows."""
    data = toy()

    def job(repetition):
        return majority(data, repetition)

    whole = run_batches(tmp_path / "one_job", batch_labels(4, 4), job)
    halves = run_batches(tmp_path / "two_jobs", batch_labels(4, 2), job)
    singles = run_batches(tmp_path / "four_jobs", batch_labels(4, 1), job)
    assert sorted(whole.repetition.unique()) == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(whole, halves)
    pd.testing.assert_frame_equal(whole, singles)
    direct = pd.concat([job(r) for r in range(4)], ignore_index=True)
    assert np.array_equal(whole.error.to_numpy(), direct.error.to_numpy())


def test_a_batch_is_not_a_relabelled_repetition(tmp_path):
    """Negative control: a job that ignored its repetition would repeat repetition 0's draws."""
    data = toy()
    labels = batch_labels(2, 2)
    right = run_batches(
        tmp_path / "right",
        labels,
        lambda r: majority(data, r),
    )
    wrong = run_batches(
        tmp_path / "wrong",
        labels,
        lambda r: majority(data, 0),
    )
    assert not np.array_equal(right.error.to_numpy(), wrong.error.to_numpy())


def test_batched_parameter_values_change_no_number(tmp_path):
    """A job over every (task, ε) writes, point by point, the rows of one job per point: each
    point draws from its own keys' streams, whatever else the job runs."""
    data = toy()
    tasks, epsilons = ["lr", "svm"], [0.5, 2.0]
    batched = run_batches(
        tmp_path / "batched",
        batch_labels(3, 3),
        lambda r, task, epsilon: majority(data, r, task, epsilon),
        task=tasks,
        epsilon=epsilons,
    )
    separate = pd.concat(
        [
            run_batches(tmp_path / f"{task}_{epsilon}", batch_labels(3, 1), lambda r: majority(data, r, task, epsilon))
            for task in tasks
            for epsilon in epsilons
        ],
        ignore_index=True,
    )
    assert list(dict.fromkeys(zip(batched.task, batched.epsilon))) == [(t, e) for t in tasks for e in epsilons]
    pd.testing.assert_frame_equal(batched, separate)


def test_a_batched_value_is_passed_to_the_job(tmp_path):
    """Negative control: a job that ignored its ε would repeat the first ε's draws."""
    data = toy(seed=1)
    ignored = run_batches(
        tmp_path / "ignored",
        ["0-1"],
        lambda r, epsilon: majority(data, r, "lr", 0.05).assign(epsilon=epsilon),
        epsilon=[0.05, 5.0],
    )
    used = run_batches(
        tmp_path / "used", ["0-1"], lambda r, epsilon: majority(data, r, "lr", epsilon), epsilon=[0.05, 5.0]
    )
    assert not np.array_equal(ignored.error.to_numpy(), used.error.to_numpy())
