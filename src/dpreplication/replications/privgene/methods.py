"""PrivGene (Zhang, Xiao, Yang, Zhang & Winslett, SIGMOD 2013): the methods and the jobs behind the figures.

Replication spec ``shared/specs/privgene.md``. Composes the package:

* data — :mod:`dpreplication.replications.privgene.datasets` encodes the six datasets (Table 2,
  with their substitutes) through :mod:`dpreplication.data.tabular` and scales them to ``[-1, 1]``;
* fitting — :func:`dpreplication.learning.genetic.privgene` on the fitness functions of
  :mod:`dpreplication.learning.fitness`, selecting with the enhanced exponential mechanism;
* reference fits — NoPrivacy and Majority from :mod:`dpreplication.learning.models`;
* protocol — repeated 5-fold cross-validation of :mod:`dpreplication.learning.protocol`.

A *job* (one Snakemake job) is one (dataset, task, method, ε or c, repetition): it runs the
method on the folds of that repetition and returns one row per fold (per fold and
iteration for traces); :mod:`dpreplication.replications.privgene.figures` turns the
concatenated job tables into the tidy figure tables (mean ± 95 % CI). Every random step draws from
``seeding.generator(seed, "privgene", figure, dataset, task, method, ε or c, repetition, fold)``;
the folds from ``(seed, "privgene", "folds", dataset, repetition)`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.data import tabular
from dpreplication.learning import models
from dpreplication.learning.fitness import KMeansFitness, LogisticFitness, SVMFitness
from dpreplication.learning.genetic import PrivGeneSettings, iterations, privgene
from dpreplication.learning.protocol import cross_validate, repetition_folds

PAPER = "privgene"
TASKS = ("lr", "svm")


# =========================================================================== methods


def task_labels(task: str, labels: np.ndarray) -> np.ndarray:
    """0/1 labels in the task's convention: ``{0, 1}`` for LR, ``{-1, +1}`` for the SVM (spec §1)."""
    labels = np.asarray(labels, dtype=float)
    return labels if task == "lr" else 2.0 * labels - 1.0


def make_fitness(
    task: str, features, labels, C: float = models.PRIVATE_SVM_C, k: int | None = None, kmeans_delta_factor: float = 2.0
):
    """Return the fitness object of ``task`` (``lr``, ``svm`` or ``kmeans``) on training data (0/1 labels)."""
    if task == "lr":
        return LogisticFitness(features, task_labels(task, labels))
    if task == "svm":
        return SVMFitness(features, task_labels(task, labels), C)
    if task == "kmeans":
        return KMeansFitness(features, k, kmeans_delta_factor)
    raise ValueError(f"unknown task {task!r}")


def algorithm_settings(section: dict, **changes) -> PrivGeneSettings:
    """:class:`PrivGeneSettings` from the config section ``privgene.algorithm`` (plus ``changes``)."""
    fields = {name: section[name] for name in PrivGeneSettings.__dataclass_fields__ if name in section}
    return replace(PrivGeneSettings(**fields), **changes)


VARIANTS: dict[str, dict] = {
    "EEM": {"dampening": "eem", "m_prime": 1, "selector": "exponential_mechanism"},
    "EM": {"dampening": "em", "m_prime": 1, "selector": "exponential_mechanism"},
    "EEM-RNMExp": {"dampening": "eem", "m_prime": 1, "selector": "rnm_exp"},
}
"""Selection variants of Figs 6–7 (all with m' = 1 and EEM's r): the paper's two, and EEM with
report-noisy-max/exponential noise (≡ permute-and-flip), an extra of spec §9."""


def privgene_method(
    task: str,
    epsilon: float,
    settings: PrivGeneSettings,
    C: float = models.PRIVATE_SVM_C,
    per_iteration: bool = False,
    r_settings: PrivGeneSettings | None = None,
) -> Callable:
    """Return a protocol method running PrivGene on the training fold and scoring the test fold.

    Parameters
    ----------
    per_iteration : bool
        One row per iteration — the test error of the vector selected at that iteration (all are
        ε-DP outputs), with the trace (Δ1, Δ2, Δ used, scale).
    r_settings : PrivGeneSettings or None
        Take r from these settings (Figs 6–7 run EM with EEM's r).
    """

    def run(train_x, train_y, test_x, test_y, rng):
        fitness = make_fitness(task, train_x, train_y, C)
        reference = r_settings or settings
        r = iterations(reference.c, fitness.size, epsilon, reference.selected)
        result = privgene(fitness, epsilon, settings, rng, n_iterations=r)
        truth = task_labels(task, test_y)
        if per_iteration:
            trace = result.trace.copy()
            trace["error"] = np.atleast_1d(models.misclassification_rate(test_x, truth, result.selected, task))
            trace.insert(0, "r", result.iterations)
            return trace
        return {
            "r": result.iterations,
            "error": float(models.misclassification_rate(test_x, truth, result.omega, task)),
        }

    return run


def noprivacy_method(task: str, C: float | None = None) -> Callable:
    """NoPrivacy (spec §3.1): unregularised LR by Newton, or the linear SVM with the tuned ``C``."""

    def run(train_x, train_y, test_x, test_y, rng):
        truth = task_labels(task, train_y)
        omega = (
            models.fit_logistic_regression(train_x, truth) if task == "lr" else models.fit_linear_svm(train_x, truth, C)
        )
        return {"error": float(models.misclassification_rate(test_x, task_labels(task, test_y), omega, task))}

    return run


def majority_method(task: str, epsilon: float) -> Callable:
    """Majority (spec §3.2): the constant label chosen by a Laplace-noised count (ε-DP)."""

    def run(train_x, train_y, test_x, test_y, rng):
        label = models.majority_classifier(task_labels(task, train_y), epsilon, rng)
        return {"error": float(np.mean(task_labels(task, test_y) != label))}

    return run


def training_size(n: int, folds: int) -> int:
    """Rows in the training part of fold 0 (the largest test fold): ``n - ⌈n/folds⌉``."""
    return n - -(-n // folds)


def job_generator(seed: int, figure: str, dataset: str, task: str, method: str, parameter: float, repetition: int):
    """Return the per-fold generator factory of one job (spec §1 "Randomness")."""
    return lambda fold: seeding.generator(seed, PAPER, figure, dataset, task, method, parameter, repetition, fold)


def run_job(
    data: tabular.TabularData,
    method: Callable,
    *,
    seed: int,
    figure: str,
    task: str,
    method_name: str,
    parameter: float,
    repetition: int,
    folds: int,
    use_folds,
    labels: dict | None = None,
) -> pd.DataFrame:
    """One job: ``method`` on the shared folds of ``repetition``; one row per fold (or per fold and iteration)."""
    splits = repetition_folds(len(data.features), folds, seed, PAPER, data.name, repetition)
    frame = cross_validate(
        data.features,
        data.labels,
        splits,
        method,
        job_generator(seed, figure, data.name, task, method_name, parameter, repetition),
        use_folds,
    )
    return with_key_columns(
        frame, dataset=data.name, task=task, method=method_name, **(labels or {}), repetition=repetition
    )


def with_key_columns(frame: pd.DataFrame, **keys) -> pd.DataFrame:
    """``frame`` with the job's keys inserted, in order, as its first columns."""
    for position, (column, value) in enumerate(keys.items()):
        frame.insert(position, column, value)
    return frame


def choice_of_c_job(
    data, task: str, c: float, repetition: int, *, seed: int, epsilon: float, algorithm: dict, folds: int, use_folds
) -> pd.DataFrame:
    """Fig. 2 job: PrivGene+EEM (m' = 1) with ``c`` at budget ``ε`` on one repetition's folds."""
    settings = algorithm_settings(algorithm, c=c, **VARIANTS["EEM"])
    method = privgene_method(task, epsilon, settings, algorithm["svm_C"])
    return run_job(
        data,
        method,
        seed=seed,
        figure="choice_of_c",
        task=task,
        method_name="PrivGene-EEM",
        parameter=c,
        repetition=repetition,
        folds=folds,
        use_folds=use_folds,
        labels={"epsilon": epsilon, "c": c},
    )


def eem_vs_em_job(
    data, task: str, variant: str, repetition: int, *, seed: int, epsilon: float, algorithm: dict, folds: int, use_folds
) -> pd.DataFrame:
    """Figs 6–7 job: one selection variant at ``ε``, r of EEM, test error of every iteration's selection."""
    settings = algorithm_settings(algorithm, **VARIANTS[variant])
    reference = algorithm_settings(algorithm, **VARIANTS["EEM"])
    method = privgene_method(task, epsilon, settings, algorithm["svm_C"], per_iteration=True, r_settings=reference)
    return run_job(
        data,
        method,
        seed=seed,
        figure="eem_vs_em",
        task=task,
        method_name=variant,
        parameter=epsilon,
        repetition=repetition,
        folds=folds,
        use_folds=use_folds,
        labels={"epsilon": epsilon},
    )


def svm_c_tuning(data, *, seed: int, grid, folds: int, use_folds) -> pd.DataFrame:
    """NoPrivacy SVM: mean CV error of each ``C`` on repetition 0's folds (spec §3.1); ``chosen`` marks the best."""
    splits = repetition_folds(len(data.features), folds, seed, PAPER, data.name, 0)
    chosen_folds = [splits[i] for i in (range(folds) if use_folds is None else use_folds)]
    errors = models.svm_cross_validation_errors(data.features, task_labels("svm", data.labels), chosen_folds, grid)
    best = int(np.argmin(errors))
    return pd.DataFrame(
        {"dataset": data.name, "C": list(grid), "cv_error": errors, "chosen": [i == best for i in range(len(grid))]}
    )


def reference_job(
    data,
    task: str,
    method_name: str,
    repetition: int,
    *,
    seed: int,
    epsilon: float,
    svm_C: float | None = None,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """Run a NoPrivacy or Majority job (spec §3.1–§3.2) on one repetition's folds."""
    if method_name == "NoPrivacy":
        method = noprivacy_method(task, svm_C)
    elif method_name == "Majority":
        method = majority_method(task, epsilon)
    else:
        raise ValueError(f"unknown reference method {method_name!r}")
    return run_job(
        data,
        method,
        seed=seed,
        figure="reference",
        task=task,
        method_name=method_name,
        parameter=epsilon,
        repetition=repetition,
        folds=folds,
        use_folds=use_folds,
        labels={"epsilon": epsilon, "C": np.nan if svm_C is None else svm_C},
    )
