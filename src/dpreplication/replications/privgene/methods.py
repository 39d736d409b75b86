"""PrivGene (Zhang, Xiao, Yang, Zhang & Winslett, SIGMOD 2013): the tasks and the methods of Figs 2–7.

Replication spec ``shared/specs/privgene.md``. A *task* fixes the labels, the fitness and how a
released model is scored; a *method* is two plain functions, looked up by name:

* ``prepare(task, x, y, settings, streams) -> state`` — what does not depend on ε, computed once
  per training fold: PrivGene's fitness, PrivateSVM's non-private weights, GUPT's partition and
  block fits (drawn from ``streams("partition")``), NoPrivacy's fit;
* ``release(state, ε, rng) -> Release`` — the ε-DP output on that fold (NoPrivacy: its fit).

The methods compose the package: :func:`dpreplication.learning.genetic.privgene` (selecting with
the enhanced exponential mechanism) on :mod:`dpreplication.learning.fitness`, and the baselines of
:mod:`dpreplication.learning` (spec §3). The jobs that run them over folds, repetitions and ε are
:mod:`dpreplication.replications.privgene.jobs`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dpreplication.accounting.ledger import record_non_private
from dpreplication.learning import functional_mechanism, models, objective_perturbation, output_perturbation
from dpreplication.learning import sample_and_aggregate as gupt
from dpreplication.learning.fitness import KMeansFitness, LogisticFitness, SVMFitness
from dpreplication.learning.genetic import PrivGeneResult, PrivGeneSettings, iterations, privgene
from dpreplication.learning.protocol import repetition_folds
from dpreplication.replications.privgene import PAPER

TASKS = ("lr", "svm")

METHODS: dict[str, tuple[str, ...]] = {
    "lr": ("PrivGene", "PrivateERM", "FM", "GUPT", "Majority", "NoPrivacy"),
    "svm": ("PrivGene", "PrivateERM", "PrivateSVM", "GUPT", "Majority", "NoPrivacy"),
    "kmeans": ("PrivGene", "GUPT", "NoPrivacy"),
}
"""The series of Figs 3 (LR), 4 (SVM) and 5 (k-means), spec §5."""
METHOD_ORDER = ("PrivGene", "PrivateERM", "FM", "PrivateSVM", "GUPT", "Majority", "NoPrivacy")
EPSILON_FREE = ("NoPrivacy",)
"""Methods whose output does not depend on ε: one row per fold, drawn as a flat series."""

VARIANTS: dict[str, dict] = {
    "EEM": {"dampening": "eem", "m_prime": 1, "selector": "exponential_mechanism"},
    "EM": {"dampening": "em", "m_prime": 1, "selector": "exponential_mechanism"},
    "EEM-RNMExp": {"dampening": "eem", "m_prime": 1, "selector": "rnm_exp"},
}
"""Selection variants of Figs 6–7 (all with m' = 1 and EEM's r): the paper's two, and EEM with
report-noisy-max/exponential noise (≡ permute-and-flip), an extra of spec §9. Figs 2–4 select
with EEM."""
KMEANS_SELECTION = {"dampening": "em", "m_prime": 10, "selector": "exponential_mechanism"}
"""PrivGene k-means selects with EM and m' = 10 (paper §5.3, spec §2.6)."""


# =========================================================================== tasks


def task_labels(task: str, labels: np.ndarray) -> np.ndarray:
    """0/1 labels in the task's convention: ``{0, 1}`` for LR, ``{-1, +1}`` for the SVM (spec §1)."""
    labels = np.asarray(labels, dtype=float)
    return labels if task == "lr" else 2.0 * labels - 1.0


@dataclass(frozen=True)
class LinearTask:
    """Logistic regression (``lr``) or the linear SVM (``svm``) of Figs 2–4, scored by misclassification."""

    name: str
    value = "error"
    output_range = gupt.LINEAR_RANGE

    def __post_init__(self):  # noqa: D105
        if self.name not in TASKS:
            raise ValueError(f"unknown task {self.name!r}; tasks: {TASKS}")

    def labels(self, labels01) -> np.ndarray:
        """Return the task's labels of 0/1 ``labels01`` (:func:`task_labels`)."""
        return task_labels(self.name, labels01)

    def fitness(self, x, labels01, algorithm: dict):
        """PrivGene's fitness on the training fold (SVM: with C = ``algorithm["svm_C"]``)."""
        if self.name == "lr":
            return LogisticFitness(x, self.labels(labels01))
        return SVMFitness(x, self.labels(labels01), algorithm["svm_C"])

    def score(self, x, labels01, model):
        """Return the misclassification rate of ``model`` on ``x``.

        ``model`` is a weight vector (a stack of them: one rate each) or Majority's constant label.
        """
        truth = self.labels(labels01)
        if np.ndim(model) == 0:
            return float(np.mean(truth != model))
        return models.misclassification_rate(x, truth, model, self.name)

    def fit_nonprivate(self, x, labels01, settings, streams):
        """NoPrivacy (spec §3.1): unregularised LR by Newton, or the linear SVM with the tuned ``svm_C``."""
        truth = self.labels(labels01)
        if self.name == "lr":
            return models.fit_logistic_regression(x, truth)
        return models.fit_linear_svm(x, truth, settings.svm_C)

    def block_outputs(self, x, labels01, blocks, rng, settings) -> np.ndarray:
        """GUPT's per-block non-private fits (spec §3.6); ``rng`` is unused (the fits are deterministic)."""
        if self.name == "lr":
            return gupt.logistic_block_outputs(x, labels01, blocks)
        return gupt.svm_block_outputs(x, task_labels("svm", labels01), blocks, settings.svm_C)


@dataclass(frozen=True)
class KMeansTask:
    """Fig. 5: k-means into ``k`` clusters, scored by the average intra-cluster variance (spec §1)."""

    k: int
    value = "variance"
    output_range = gupt.CENTRE_RANGE

    @property
    def name(self) -> str:
        """``"kmeans_k<k>"``, the task label of a Fig. 5 panel."""
        return f"kmeans_k{self.k}"

    def fitness(self, x, labels01, algorithm: dict):
        """Return the k-means fitness of Eq. 18, its Δ scaled by ``algorithm["kmeans_delta_factor"]``."""
        return KMeansFitness(x, self.k, algorithm["kmeans_delta_factor"])

    def score(self, x, labels01, model) -> float:
        """Average intra-cluster variance of ``x`` around the ``k`` centres in ``model``."""
        return models.intra_cluster_variance(x, np.asarray(model).reshape(self.k, x.shape[1]))

    def fit_nonprivate(self, x, labels01, settings, streams):
        """NoPrivacy: Lloyd on all the data (k-means++, best of ``restarts``), drawing from the base stream."""
        return models.lloyd_kmeans(x, self.k, streams(), settings.restarts, settings.max_iter)

    def block_outputs(self, x, labels01, blocks, rng, settings) -> np.ndarray:
        """GUPT's per-block Lloyd fits, centres sorted (spec §3.6)."""
        return gupt.kmeans_block_outputs(x, blocks, self.k, rng, settings.restarts, settings.max_iter)


def make_fitness(
    task: str, features, labels, C: float = models.PRIVATE_SVM_C, k: int | None = None, kmeans_delta_factor: float = 2.0
):
    """Return the fitness object of ``task`` (``lr``, ``svm`` or ``kmeans``) on training data (0/1 labels)."""
    if task == "kmeans":
        return KMeansTask(k).fitness(features, None, {"kmeans_delta_factor": kmeans_delta_factor})
    return LinearTask(task).fitness(features, labels, {"svm_C": C})


def algorithm_settings(section: dict, **changes) -> PrivGeneSettings:
    """:class:`PrivGeneSettings` from the config section ``privgene.algorithm`` (plus ``changes``)."""
    fields = {name: section[name] for name in PrivGeneSettings.__dataclass_fields__ if name in section}
    return replace(PrivGeneSettings(**fields), **changes)


@dataclass(frozen=True)
class MethodSettings:
    """What the methods read, typed; each job sets only its method's keys (an unknown key is a TypeError)."""

    algorithm: dict | None = None
    """PrivGene: the config section ``privgene.algorithm``."""
    selection: dict | None = None
    """PrivGene: the selection's changes to ``algorithm`` (default :data:`VARIANTS` ``["EEM"]``)."""
    r_selection: dict | None = None
    """PrivGene: take r from these changes instead (Figs 6–7 run EM with EEM's r)."""
    svm_C: float | None = models.PRIVATE_SVM_C
    """C of the private SVM baselines (PrivateSVM, GUPT, PrivateERM's default Λ); NoPrivacy's tuned C."""
    gupt_eps_fraction: float = 1.0
    """GUPT: the share of ε spent on the noisy mean (spec §3.6)."""
    erm_lr_regulariser: float = objective_perturbation.LOGISTIC_REGULARISER
    erm_svm_regulariser: float | None = None
    """PrivateERM's Huber SVM Λ; ``None``: 1/(C·n) with C = ``svm_C`` (spec §3.4 [inferred])."""
    erm_huber_h: float = objective_perturbation.HUBER_H
    restarts: int = 10
    """k-means (GUPT's blocks, NoPrivacy): Lloyd's restarts and iterations."""
    max_iter: int = 300


# =========================================================================== methods


@dataclass(frozen=True)
class Release:
    """What a method released on one fold at one ε: the model, and PrivGene's run."""

    model: np.ndarray | float
    """Weights (``d``), ``k`` centres flattened, or Majority's constant label."""
    r: float = np.nan
    """PrivGene's number of selections."""
    run: PrivGeneResult | None = None
    """PrivGene's per-iteration selections and trace (Figs 6–7)."""


@dataclass(frozen=True)
class PrivGeneState:
    """PrivGene prepared on a training fold: its fitness and settings."""

    fitness: object
    settings: PrivGeneSettings
    r_settings: PrivGeneSettings | None
    """Take r from these settings instead (Figs 6–7 run EM with EEM's r)."""


def prepare_privgene(task, x, y, settings: MethodSettings, streams) -> PrivGeneState:
    """PrivGene with ``settings.algorithm`` and the ``selection`` changes (EEM by default)."""
    algorithm, r_selection = settings.algorithm, settings.r_selection
    return PrivGeneState(
        task.fitness(x, y, algorithm),
        algorithm_settings(algorithm, **(settings.selection or VARIANTS["EEM"])),
        None if r_selection is None else algorithm_settings(algorithm, **r_selection),
    )


def release_privgene(state: PrivGeneState, epsilon: float, rng) -> Release:
    """PrivGene (Algorithm 1): ε-DP by sequential composition of its r EEM (or EM) selections."""
    reference = state.r_settings
    r = None if reference is None else iterations(reference.c, state.fitness.size, epsilon, reference.selected)
    run = privgene(state.fitness, float(epsilon), state.settings, rng, n_iterations=r)
    return Release(run.omega, run.iterations, run)


def private_erm_loss(task: str, n: int, settings: MethodSettings) -> tuple[str, float]:
    """PrivateERM's loss and Λ for ``task`` on ``n`` training rows (spec §3.4).

    LR: the logistic loss with Λ = ``erm_lr_regulariser`` (1e-12 [paper]); SVM: the Huber loss with
    Λ = ``erm_svm_regulariser`` (``None``: 1/(C·n) with C = ``svm_C`` [inferred]).
    """
    if task == "lr":
        return "logistic", settings.erm_lr_regulariser
    regulariser = settings.erm_svm_regulariser
    return "huber", 1.0 / (settings.svm_C * n) if regulariser is None else regulariser


def prepare_private_erm(task, x, y, settings: MethodSettings, streams) -> dict:
    """Choose PrivateERM's loss and regulariser on the training fold (:func:`private_erm_loss`)."""
    loss, regulariser = private_erm_loss(task.name, len(x), settings)
    y_pm = task_labels("svm", y)
    return {"x": x, "y_pm": y_pm, "design": objective_perturbation.erm_design(x, y_pm), "loss": loss,
            "regulariser": regulariser, "huber_h": settings.erm_huber_h}  # fmt: skip


def release_private_erm(state: dict, epsilon: float, rng) -> Release:
    """Release the objective-perturbation minimiser (Chaudhuri et al. 2011): ε-DP."""
    omega = objective_perturbation.fit_private_erm(
        state["x"], state["y_pm"], epsilon, rng, loss=state["loss"], regulariser=state["regulariser"],
        huber_h=state["huber_h"], design=state["design"],
    )  # fmt: skip
    return Release(omega)


def prepare_fm(task, x, y, settings: MethodSettings, streams) -> tuple:
    """Keep the training fold (the functional mechanism, spec §3.3)."""
    return x, y


def release_fm(state: tuple, epsilon: float, rng) -> Release:
    """Release the functional mechanism's fit (Zhang et al. 2012): ε-DP."""
    return Release(functional_mechanism.fit_functional_mechanism(*state, epsilon, rng))


def prepare_private_svm(task, x, y, settings: MethodSettings, streams) -> dict:
    """PrivateSVM (spec §3.5): the non-private weights, solved once for every ε."""
    weights = output_perturbation.fit_svm_weights(x, task_labels("svm", y), settings.svm_C)
    return {"weights": weights, "n": len(x), "C": settings.svm_C}


def release_private_svm(state: dict, epsilon: float, rng) -> Release:
    """Release the SVM weights with output perturbation: ε-DP."""
    return Release(output_perturbation.privatise_svm_weights(state["weights"], state["n"], epsilon, rng, state["C"]))


def prepare_gupt(task, x, y, settings: MethodSettings, streams) -> dict:
    """GUPT (spec §3.6): the partition and the block fits, drawn from ``streams("partition")``."""
    rng = streams("partition")
    blocks = gupt.gupt_partition(len(x), rng)
    return {
        "outputs": task.block_outputs(x, y, blocks, rng, settings),
        "range": task.output_range,
        "fraction": settings.gupt_eps_fraction,
    }


def release_gupt(state: dict, epsilon: float, rng) -> Release:
    """Release the block outputs' clamped mean with Laplace noise (sample and aggregate): ε-DP."""
    return Release(gupt.gupt_aggregate(state["outputs"], state["range"], epsilon, rng, state["fraction"]))


def prepare_majority(task, x, y, settings: MethodSettings, streams) -> np.ndarray:
    """Keep the training labels in the task's convention (Majority, spec §3.2)."""
    return task.labels(y)


def release_majority(state: np.ndarray, epsilon: float, rng) -> Release:
    """Release the constant label chosen by a Laplace-noised count: ε-DP."""
    return Release(models.majority_classifier(state, epsilon, rng))


def prepare_noprivacy(task, x, y, settings: MethodSettings, streams):
    """NoPrivacy: the task's non-private fit."""
    return task.fit_nonprivate(x, y, settings, streams)


def release_noprivacy(state, epsilon: float, rng) -> Release:
    """NoPrivacy releases its fit (no privacy, ε = ∞ in the ledger; the same for every ε)."""
    record_non_private("NoPrivacy")
    return Release(state)


PREPARE = {
    "PrivGene": prepare_privgene,
    "PrivateERM": prepare_private_erm,
    "FM": prepare_fm,
    "PrivateSVM": prepare_private_svm,
    "GUPT": prepare_gupt,
    "Majority": prepare_majority,
    "NoPrivacy": prepare_noprivacy,
}
RELEASE = {
    "PrivGene": release_privgene,
    "PrivateERM": release_private_erm,
    "FM": release_fm,
    "PrivateSVM": release_private_svm,
    "GUPT": release_gupt,
    "Majority": release_majority,
    "NoPrivacy": release_noprivacy,
}


# =========================================================================== helpers of the jobs


def training_size(n: int, folds: int) -> int:
    """Rows in the training part of fold 0 (the largest test fold): ``n - ⌈n/folds⌉``."""
    return n - -(-n // folds)


def with_key_columns(frame: pd.DataFrame, **keys) -> pd.DataFrame:
    """``frame`` with the job's keys inserted, in order, as its first columns."""
    for position, (column, value) in enumerate(keys.items()):
        frame.insert(position, column, value)
    return frame


def svm_c_tuning(data, *, seed: int, grid, folds: int, use_folds) -> pd.DataFrame:
    """NoPrivacy SVM: mean CV error of each ``C`` on repetition 0's folds (spec §3.1); ``chosen`` marks the best."""
    splits = repetition_folds(len(data.features), folds, seed, PAPER, data.name, 0)
    chosen_folds = [splits[i] for i in (range(folds) if use_folds is None else use_folds)]
    errors = models.svm_cross_validation_errors(data.features, task_labels("svm", data.labels), chosen_folds, grid)
    best = int(np.argmin(errors))
    return pd.DataFrame(
        {"dataset": data.name, "C": list(grid), "cv_error": errors, "chosen": [i == best for i in range(len(grid))]}
    )
