"""PrivGene's jobs: one runner for every job of Figs 2–7 (spec ``privgene.md`` §1, §4).

A :class:`Job` names a method of :mod:`~dpreplication.replications.privgene.methods` on a task,
its settings, the ε it releases at and the keys of its streams. :func:`run_job` runs it on the
shared folds of one repetition (Fig. 5: on the full data): per fold it prepares the method once
and releases at every ε, one row per (fold, ε) — per iteration for Figs 6–7's traces.

Every random step draws from :func:`job_streams`, ``seeding.generator(seed, "privgene", figure,
dataset, task, method, *parameter, repetition, fold, *keys)``: the comparison jobs of Figs 3–5
add ε (or ``"partition"``, GUPT's split) so that a value at one ε does not depend on the rest of
the grid; the older Fig. 2, Figs 6–7 and reference jobs run one ε and draw one stream per fold,
keyed by their parameter (c, or ε). The folds depend on (dataset, repetition) only, so every
method of a repetition is paired.

A solver that does not converge (:class:`~dpreplication.learning.models.ConvergenceError`)
releases nothing: its rows carry a NaN value and the message in ``failure``.

Each release runs inside its own privacy ledger (:func:`dpreplication.accounting.ledger.spending`)
with the row's ε as its budget (none for NoPrivacy): the row carries what the release's draws
recorded (``spent_epsilon``, ``spent_delta``, ``draws``, ``events``), and a draw that would exceed
the budget stops the job (:class:`~dpreplication.accounting.ledger.PrivacyBudgetExceeded`).
Preparing a method (fits shared by every ε) must release nothing; a draw there stops the job.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.accounting.ledger import LEDGER_COLUMNS, ledger_table, spending
from dpreplication.data import tabular
from dpreplication.learning import models
from dpreplication.learning.genetic import TRACE_COLUMNS
from dpreplication.learning.protocol import repetition_folds
from dpreplication.replications.privgene import PAPER
from dpreplication.replications.privgene.methods import (
    EPSILON_FREE,
    KMEANS_SELECTION,
    METHODS,
    PREPARE,
    RELEASE,
    VARIANTS,
    KMeansTask,
    LinearTask,
    MethodSettings,
    with_key_columns,
)

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One method on one task at the ε of ``epsilons``, and how its streams and rows are keyed."""

    figure: str
    task: LinearTask | KMeansTask
    method: str
    """The method's name in :data:`~dpreplication.replications.privgene.methods.PREPARE`."""
    epsilons: tuple
    """The ε it releases at, as its rows label them: the grids of Figs 3–5 as floats, the one ε of
    the other jobs as configured."""
    settings: MethodSettings = field(default_factory=MethodSettings)
    label: str | None = None
    """The method as the stream keys and the rows name it (default: ``method``)."""
    parameter: tuple = ()
    """Stream keys between the method and the repetition (Fig. 2's c; the reference and Figs 6–7's ε)."""
    epsilon_keyed: bool = True
    """One stream per (fold, ε), or one per fold (the one-ε jobs of Figs 2, 6–7 and the references)."""
    columns: dict = field(default_factory=dict)
    """Key columns of the rows beside dataset, task and method (Fig. 2's c, Fig. 5's k, the reference's C)."""
    trace: bool = False
    """One row per PrivGene iteration (Figs 6–7), not per ε."""
    folds: int | None = 5
    """Folds of the repetition's split; ``None``: the full data is both training and test (Fig. 5)."""
    use_folds: tuple | None = None
    """Which folds run (default all)."""


def job_streams(seed: int, *keys):
    """``(*more) -> Generator``: the stream ``seeding.generator(seed, "privgene", *keys, *more)``."""
    return lambda *more: seeding.generator(seed, PAPER, *keys, *more)


def fold_splits(data: tabular.TabularData, job: Job, repetition: int, seed: int) -> list[tuple]:
    """``(fold, train, test)`` index arrays of the folds the job runs (Fig. 5: the whole data, as a slice)."""
    if job.folds is None:
        return [(0, slice(None), slice(None))]
    splits = repetition_folds(len(data.features), job.folds, seed, PAPER, data.name, repetition)
    chosen = range(job.folds) if job.use_folds is None else job.use_folds
    return [(fold, *splits[fold]) for fold in chosen]


def run_job(data: tabular.TabularData, job: Job, repetition: int, *, seed: int) -> pd.DataFrame:
    """Run ``job`` on the folds of ``repetition``: one row per (fold, ε), or per (fold, iteration).

    Columns: dataset, task, method, the job's ``columns``, repetition, fold, n_train, n_test,
    epsilon, the task's value (``error``; Fig. 5: ``variance``), r (PrivGene's number of
    selections), failure — and, for a trace, the trace columns of
    :func:`~dpreplication.learning.genetic.privgene` before the value.
    """
    label = job.label or job.method
    task, prepare, release = job.task, PREPARE[job.method], RELEASE[job.method]
    labels = data.labels
    rows = []
    for fold, train, test in fold_splits(data, job, repetition, seed):
        streams = job_streams(seed, job.figure, data.name, task.name, label, *job.parameter, repetition, fold)
        train_x, test_x = data.features[train], data.features[test]
        train_y, test_y = (None, None) if labels is None else (labels[train], labels[test])
        keys = {"repetition": repetition, "fold": fold, "n_train": len(train_x), "n_test": len(test_x)}
        state, released, failure = None, None, ""
        with spending() as preparation:
            try:
                state = prepare(task, train_x, train_y, job.settings, streams)
            except models.ConvergenceError as error:
                failure = _failure(label, error)
        if preparation.entries:
            raise RuntimeError(
                f"{label}: preparing a fold drew privacy noise ({preparation.describe()}); only a release may"
            )
        for epsilon in job.epsilons:
            rng = streams(epsilon) if job.epsilon_keyed else streams()
            with spending(None if job.method in EPSILON_FREE else float(epsilon)) as ledger:
                if not failure:  # a solver that failed once releases nothing for the rest of the fold
                    try:
                        released = release(state, epsilon, rng)
                    except models.ConvergenceError as error:
                        released, failure = None, _failure(label, error)
            point = {**keys, "epsilon": epsilon, **ledger.summary()}
            if released is None:
                rows.append({**point, task.value: np.nan, "r": np.nan, "failure": failure})
            elif job.trace:
                trace = released.run.trace.assign(r=released.r)
                trace[task.value] = np.atleast_1d(task.score(test_x, test_y, released.run.selected))
                rows += [{**point, **row, "failure": ""} for row in trace.to_dict("records")]
            else:
                value = float(task.score(test_x, test_y, released.model))
                rows.append({**point, task.value: value, "r": released.r, "failure": ""})
    LOGGER.info("%s %s %s: repetition %d done (%d rows)", data.name, task.name, label, repetition, len(rows))
    columns = ["repetition", "fold", "n_train", "n_test", "epsilon"]
    columns += ["r", *TRACE_COLUMNS, task.value, "failure"] if job.trace else [task.value, "r", "failure"]
    columns += LEDGER_COLUMNS
    frame = pd.DataFrame(rows, columns=columns)
    return with_key_columns(frame, dataset=data.name, task=task.name, method=label, **job.columns)


def ledger(rows: pd.DataFrame) -> pd.DataFrame:
    """Return the privacy ledger of the points that :func:`run_job` rows release, one row per point.

    A point is a (dataset, task, method, key column, ε) of the rows
    (:func:`~dpreplication.accounting.ledger.ledger_table`); NoPrivacy states no budget.
    """
    keys = [column for column in ("dataset", "task", "method", "c", "k", "C", "schedule", "paper_r") if column in rows]
    return ledger_table(rows, keys, non_private={"method": EPSILON_FREE})


def _failure(method: str, error: Exception) -> str:
    """Log a solver that did not converge; return the ``failure`` text of its rows (nothing is released)."""
    LOGGER.warning("%s: %s", method, error)
    return f"{type(error).__name__}: {error}"


# =========================================================================== the jobs of each figure


def comparison(task: str, method: str, *, epsilons, folds: int = 5, use_folds=None, **settings) -> Job:
    """Figs 3–4: ``method`` on the repetition's folds at every ε of the grid, one stream per (fold, ε)."""
    if method not in METHODS[task] or method in EPSILON_FREE:
        jobs = [name for name in METHODS[task] if name not in EPSILON_FREE]
        raise ValueError(f"{method!r} is not a comparison job of task {task!r}; jobs: {jobs}")
    return Job("comparison", LinearTask(task), method, _grid(epsilons), MethodSettings(**settings), folds=folds,
               use_folds=_folds(use_folds))  # fmt: skip


def kmeans(k: int, method: str, *, epsilons, **settings) -> Job:
    """Fig. 5: one run of ``method`` clustering the full data into ``k`` clusters at every ε.

    PrivGene selects with EM and m' = 10; NoPrivacy is one row at ε = NaN.
    """
    if method not in METHODS["kmeans"]:
        raise ValueError(f"unknown k-means method {method!r}; known: {METHODS['kmeans']}")
    if method == "PrivGene":
        settings = {**settings, "selection": KMEANS_SELECTION}
    settings = MethodSettings(**settings)
    free = method == "NoPrivacy"  # ε-free: one row at ε = NaN, from the run's base stream
    return Job("kmeans", KMeansTask(int(k)), method, (np.nan,) if free else _grid(epsilons), settings,
               epsilon_keyed=not free, columns={"k": int(k)}, folds=None)  # fmt: skip


def reference(task: str, method: str, *, epsilon: float, svm_C: float | None = None, folds: int = 5,
              use_folds=None) -> Job:  # fmt: skip
    """NoPrivacy (SVM with the tuned ``svm_C``) or Majority at ``ε``: the flat series of Figs 2–4 and 6–7."""
    if method not in ("NoPrivacy", "Majority"):
        raise ValueError(f"unknown reference method {method!r}; known: NoPrivacy, Majority")
    return Job("reference", LinearTask(task), method, (epsilon,), MethodSettings(svm_C=svm_C), parameter=(epsilon,),
               epsilon_keyed=False, columns={"C": np.nan if svm_C is None else svm_C}, folds=folds,
               use_folds=_folds(use_folds))  # fmt: skip


def choice_of_c(task: str, c: float, *, epsilon: float, algorithm: dict, folds: int = 5, use_folds=None) -> Job:
    """Fig. 2: PrivGene+EEM (m' = 1) with ``c`` at budget ``ε``."""
    settings = MethodSettings(algorithm={**algorithm, "c": c}, selection=VARIANTS["EEM"])
    return Job("choice_of_c", LinearTask(task), "PrivGene", (epsilon,), settings, label="PrivGene-EEM",
               parameter=(c,), epsilon_keyed=False, columns={"c": c}, folds=folds,
               use_folds=_folds(use_folds))  # fmt: skip


def eem_vs_em(task: str, variant: str, *, epsilon: float, algorithm: dict, folds: int = 5, use_folds=None) -> Job:
    """Figs 6–7: one selection variant at ``ε`` with EEM's r; the test error of every iteration's selection."""
    settings = MethodSettings(algorithm=algorithm, selection=VARIANTS[variant], r_selection=VARIANTS["EEM"])
    return Job("eem_vs_em", LinearTask(task), "PrivGene", (epsilon,), settings, label=variant,
               parameter=(epsilon,), epsilon_keyed=False, trace=True, folds=folds,
               use_folds=_folds(use_folds))  # fmt: skip


def _grid(epsilons) -> tuple[float, ...]:
    return tuple(float(epsilon) for epsilon in epsilons)


def _folds(use_folds) -> tuple | None:
    return None if use_folds is None else tuple(use_folds)
