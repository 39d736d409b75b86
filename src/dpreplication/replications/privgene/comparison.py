"""PrivGene Figs 3–5: PrivGene against the baselines over the ε grid (spec ``privgene.md`` §3–§5).

A comparison *job* is one (dataset, task, method, repetition) and runs the method on the five
shared folds of that repetition at **every ε of the grid**, one row per (fold, ε). One job per
method rather than per ε because the costly part of three baselines does not depend on ε and is
computed once per fold: GUPT's block fits (§3.6), PrivateSVM's non-private weights (§3.5), and
NoPrivacy, which is not rerun at all (its rows come from the reference jobs, same folds). Every
(fold, ε) draws from its own stream ``seeding.generator(seed, "privgene", "comparison", dataset,
task, method, repetition, fold, ε)``, so a value at one ε does not depend on the rest of the grid
(the quick and default profiles agree on the ε they share). The folds depend on (dataset,
repetition) only, so all methods of a repetition are paired.

Fig. 5 jobs are one (dataset, k, method, run) on the full scaled data (spec §4 default), again
over the whole grid; ``run`` plays the part of the repetition (fold 0 of one "fold").

A solver that does not converge (:class:`~dpreplication.learning.models.ConvergenceError`)
releases nothing: its rows carry ``error = NaN`` and the message in ``failure``, and the figure
tables count these failures per point.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.data import tabular
from dpreplication.learning import functional_mechanism, models, objective_perturbation, output_perturbation
from dpreplication.learning import sample_and_aggregate as gupt
from dpreplication.learning.genetic import iterations, privgene
from dpreplication.learning.protocol import cross_validate, mean_confidence_interval, repetition_folds
from dpreplication.replications.privgene.methods import (
    PAPER,
    VARIANTS,
    algorithm_settings,
    majority_method,
    make_fitness,
    privgene_method,
    task_labels,
    training_size,
    with_key_columns,
)

LOGGER = logging.getLogger(__name__)

METHODS: dict[str, tuple[str, ...]] = {
    "lr": ("PrivGene", "PrivateERM", "FM", "GUPT", "Majority", "NoPrivacy"),
    "svm": ("PrivGene", "PrivateERM", "PrivateSVM", "GUPT", "Majority", "NoPrivacy"),
    "kmeans": ("PrivGene", "GUPT", "NoPrivacy"),
}
"""The series of Figs 3 (LR), 4 (SVM) and 5 (k-means), spec §5."""
METHOD_ORDER = ("PrivGene", "PrivateERM", "FM", "PrivateSVM", "GUPT", "Majority", "NoPrivacy")
EPSILON_FREE = ("NoPrivacy",)
"""Methods whose output does not depend on ε: one row per fold, drawn as a flat series."""
KMEANS_SELECTION = {"dampening": "em", "m_prime": 10, "selector": "exponential_mechanism"}
"""PrivGene k-means selects with EM and m' = 10 (paper §5.3, spec §2.6)."""
JOB_COLUMNS = ["epsilon", "error", "r", "failure"]

METHOD_SETTINGS: dict[str, tuple[str, ...]] = {
    "PrivGene": ("algorithm",),
    "PrivateERM": ("erm_lr_regulariser", "erm_svm_regulariser", "erm_huber_h", "svm_C"),
    "FM": (),
    "PrivateSVM": ("svm_C",),
    "GUPT": ("gupt_eps_fraction", "svm_C"),
    "Majority": (),
}
"""The config keys (of ``privgene.comparison``, plus ``algorithm`` and ``svm_C``) each method uses:
a job's settings hold only its methods' keys, so that changing an unused key reruns nothing."""
KMEANS_SETTINGS: dict[str, tuple[str, ...]] = {
    "PrivGene": ("algorithm",),
    "GUPT": ("gupt_eps_fraction", "restarts", "max_iter"),
    "NoPrivacy": ("restarts", "max_iter"),
}


def job_settings(section: dict, algorithm: dict, protocol: dict, method: str) -> dict:
    """Keyword arguments of :func:`comparison_job` for ``method`` from the config sections.

    The sections are ``privgene.comparison``, ``privgene.algorithm`` and ``privgene.protocol``.
    """
    pool = {**section, "algorithm": algorithm, "svm_C": algorithm["svm_C"]}
    return {"epsilons": section["epsilons"], **protocol, **{key: pool[key] for key in METHOD_SETTINGS[method]}}


def kmeans_job_settings(section: dict, algorithm: dict, method: str) -> dict:
    """Keyword arguments of :func:`kmeans_job` for ``method`` from the config sections.

    The sections are ``privgene.comparison`` and its ``kmeans`` subsection.
    """
    pool = {**section, **section["kmeans"], "algorithm": algorithm}
    return {"epsilons": section["epsilons"], **{key: pool[key] for key in KMEANS_SETTINGS[method]}}


def _guarded(fit: Callable, method: str):
    """``(fit(), "")``, or ``(None, message)`` when a solver did not converge (nothing is released)."""
    try:
        return fit(), ""
    except models.ConvergenceError as error:
        LOGGER.warning("%s: %s", method, error)
        return None, f"{type(error).__name__}: {error}"


def _rows(epsilons, values) -> pd.DataFrame:
    """One row per ε from ``values``: ``(error, r, failure)`` triples."""
    return pd.DataFrame([(float(e), *v) for e, v in zip(epsilons, values)], columns=JOB_COLUMNS)


def linear_method(
    task: str,
    method: str,
    epsilons,
    *,
    algorithm: dict | None = None,
    svm_C: float = models.PRIVATE_SVM_C,
    gupt_eps_fraction: float = 1.0,
    erm_lr_regulariser: float = objective_perturbation.LOGISTIC_REGULARISER,
    erm_svm_regulariser: float | None = None,
    erm_huber_h: float = objective_perturbation.HUBER_H,
) -> Callable:
    """Return a protocol method running ``method`` on one fold at every ε (spec §3), one row per ε.

    Its last argument is the fold's stream factory ``keys -> Generator`` (:func:`job_streams`).

    Parameters
    ----------
    erm_svm_regulariser : float or None
        ``None``: Λ = 1/(C·n) with C = ``svm_C`` (spec §3.4 [inferred]).
    """
    if method not in METHODS[task] or method in EPSILON_FREE:
        raise ValueError(
            f"{method!r} is not a comparison job of task {task!r}; jobs: "
            f"{[m for m in METHODS[task] if m not in EPSILON_FREE]}"
        )

    def releaser(train_x, train_y, streams) -> Callable[[float], np.ndarray]:
        """``ε -> ω`` of a baseline; what does not depend on ε is computed here, once for the grid.

        That is PrivateSVM's weights and GUPT's partition and block fits.
        """
        y_pm = task_labels("svm", train_y)
        if method == "PrivateERM":
            loss = "logistic" if task == "lr" else "huber"
            regulariser = (
                erm_lr_regulariser
                if task == "lr"
                else 1.0 / (svm_C * len(train_x))
                if erm_svm_regulariser is None
                else erm_svm_regulariser
            )
            return lambda e: objective_perturbation.fit_private_erm(
                train_x, y_pm, e, streams(e), loss=loss, regulariser=regulariser, huber_h=erm_huber_h
            )
        if method == "FM":
            return lambda e: functional_mechanism.fit_functional_mechanism(train_x, train_y, e, streams(e))
        if method == "PrivateSVM":
            weights = output_perturbation.fit_svm_weights(train_x, y_pm, svm_C)
            return lambda e: output_perturbation.privatise_svm_weights(weights, len(train_x), e, streams(e), svm_C)
        blocks = gupt.gupt_partition(len(train_x), streams("partition"))
        outputs = (
            gupt.logistic_block_outputs(train_x, train_y, blocks)
            if task == "lr"
            else gupt.svm_block_outputs(train_x, y_pm, blocks, svm_C)
        )
        return lambda e: gupt.gupt_aggregate(outputs, gupt.LINEAR_RANGE, e, streams(e), gupt_eps_fraction)

    def run(train_x, train_y, test_x, test_y, streams):
        if method == "PrivGene":
            settings = algorithm_settings(algorithm, **VARIANTS["EEM"])
            results = [
                privgene_method(task, e, settings, svm_C)(train_x, train_y, test_x, test_y, streams(e))
                for e in epsilons
            ]
            return _rows(epsilons, [(res["error"], res["r"], "") for res in results])
        if method == "Majority":
            return _rows(
                epsilons,
                [
                    (majority_method(task, e)(train_x, train_y, test_x, test_y, streams(e))["error"], np.nan, "")
                    for e in epsilons
                ],
            )
        release, failure = _guarded(lambda: releaser(train_x, train_y, streams), method)
        values = []
        for e in epsilons:
            omega, failure = (None, failure) if failure else _guarded(lambda: release(e), method)
            error = (
                np.nan
                if failure
                else float(models.misclassification_rate(test_x, task_labels(task, test_y), omega, task))
            )
            values.append((error, np.nan, failure))
        return _rows(epsilons, values)

    return run


def job_streams(seed: int, figure: str, dataset: str, task: str, method: str, repetition: int):
    """``fold -> (keys -> Generator)``: the independent streams of one job (module docstring)."""
    return lambda fold: (
        lambda *keys: seeding.generator(seed, PAPER, figure, dataset, task, method, repetition, fold, *keys)
    )


def comparison_job(
    data: tabular.TabularData,
    task: str,
    method: str,
    repetition: int,
    *,
    seed: int,
    epsilons,
    folds: int,
    use_folds,
    **method_settings,
) -> pd.DataFrame:
    """Figs 3–4 job: ``method`` on the shared folds of ``repetition`` at every ε of ``epsilons``.

    Columns: dataset, task, method, repetition, fold, n_train, n_test, epsilon, error, r (PrivGene's
    number of iterations), failure (empty, or the solver's message; ``error`` is then NaN).

    Parameters
    ----------
    **method_settings
        The keys of :data:`METHOD_SETTINGS` for ``method``.
    """
    splits = repetition_folds(len(data.features), folds, seed, PAPER, data.name, repetition)
    run = linear_method(task, method, epsilons, **method_settings)
    frame = cross_validate(
        data.features,
        data.labels,
        splits,
        run,
        job_streams(seed, "comparison", data.name, task, method, repetition),
        use_folds,
    )
    return with_key_columns(frame, dataset=data.name, task=task, method=method, repetition=repetition)


def kmeans_task(k: int) -> str:
    """Return the task label of a Fig. 5 panel: ``"kmeans_k<k>"``."""
    return f"kmeans_k{k}"


def kmeans_job(
    data: tabular.TabularData,
    k: int,
    method: str,
    run: int,
    *,
    seed: int,
    epsilons,
    algorithm: dict | None = None,
    gupt_eps_fraction: float = 1.0,
    restarts: int = 10,
    max_iter: int = 300,
) -> pd.DataFrame:
    """Fig. 5 job: one run of ``method`` clustering the full scaled data into ``k`` clusters at every ε.

    PrivGene: EM with m' = 10 (r = max(1, round(c·n·ε/10)), fitness of Eq. 18 with the Δ factor
    of config ``kmeans_delta_factor``); GUPT: Lloyd (k-means++, best of ``restarts``) per block,
    centres sorted, clamped to [-1, 1], averaged and noised (block fits shared by the grid);
    NoPrivacy: Lloyd on all the data (one row, ε = NaN). Columns as :func:`comparison_job`
    (``repetition`` = run, ``fold`` = 0) plus ``k``, with ``variance``, the average intra-cluster
    variance (spec §1) on the same data, in place of ``error``.
    """
    streams = job_streams(seed, "kmeans", data.name, kmeans_task(k), method, run)(0)
    points = data.features

    def variance(omega) -> float:
        return models.intra_cluster_variance(points, np.asarray(omega).reshape(k, points.shape[1]))

    if method == "PrivGene":
        fitness = make_fitness("kmeans", points, None, k=k, kmeans_delta_factor=algorithm["kmeans_delta_factor"])
        settings = algorithm_settings(algorithm, **KMEANS_SELECTION)
        values = []
        for e in epsilons:
            result = privgene(fitness, float(e), settings, streams(e))
            values.append((variance(result.omega), result.iterations, ""))
        frame = _rows(epsilons, values)
    elif method == "GUPT":
        generator = streams("partition")
        blocks = gupt.gupt_partition(len(points), generator)
        outputs = gupt.kmeans_block_outputs(points, blocks, k, generator, restarts, max_iter)
        frame = _rows(
            epsilons,
            [
                (
                    variance(gupt.gupt_aggregate(outputs, gupt.CENTRE_RANGE, e, streams(e), gupt_eps_fraction)),
                    np.nan,
                    "",
                )
                for e in epsilons
            ],
        )
    elif method == "NoPrivacy":
        centres = models.lloyd_kmeans(points, k, streams(), restarts, max_iter)
        frame = _rows([np.nan], [(variance(centres), np.nan, "")])
    else:
        raise ValueError(f"unknown k-means method {method!r}; known: {METHODS['kmeans']}")
    frame = frame.rename(columns={"error": "variance"})
    frame.insert(0, "fold", 0)
    frame.insert(1, "n_train", len(points))
    frame.insert(2, "n_test", len(points))
    return with_key_columns(frame, dataset=data.name, task=kmeans_task(k), k=k, method=method, repetition=run)


PAPER_R_METHOD = "PrivGene, paper's r"


def paper_r_comparison_job(
    data: tabular.TabularData,
    task: str,
    repetition: int,
    *,
    seed: int,
    epsilons,
    paper_training_rows: int,
    privgene: dict,
    privateerm: dict,
    fm: dict,
) -> pd.DataFrame:
    """Figs 3–4 ablation at small ε: PrivGene with the number of selections the paper's larger dataset gives.

    ``r = max(1, round(c · n_paper · ε))``, ``c`` rescaled so that our training folds give that r,
    beside PrivGene at our r, PrivateERM and (LR only) FM. Every (fold, ε) uses the stream of the
    main jobs (:func:`job_streams`), so the baselines' rows reproduce the main jobs' values at these
    ε and the pair differs only in r. Columns: those of :func:`comparison_job` plus ``paper_r``;
    the ablation's ``method`` is :data:`PAPER_R_METHOD`.

    Parameters
    ----------
    privgene, privateerm, fm : dict
        The :func:`job_settings` of those methods (without ``epsilons``).
    """
    baselines = {"PrivGene": privgene, "PrivateERM": privateerm, "FM": fm}
    frames = [
        comparison_job(data, task, method, repetition, seed=seed, epsilons=epsilons, **settings)
        for method, settings in baselines.items()
        if method in METHODS[task]
    ]
    n_train = training_size(len(data.features), privgene["folds"])
    algorithm = privgene["algorithm"]
    for epsilon in epsilons:
        paper_r = iterations(algorithm["c"], paper_training_rows, epsilon, 1)
        rescaled = {**privgene, "algorithm": {**algorithm, "c": paper_r / (n_train * epsilon)}}
        frame = comparison_job(data, task, "PrivGene", repetition, seed=seed, epsilons=[epsilon], **rescaled)
        if not (frame.r == paper_r).all():
            raise ValueError(f"{data.name}: rescaled c gives r = {sorted(set(frame.r))}, not {paper_r}")
        frames.append(frame.assign(method=PAPER_R_METHOD, paper_r=paper_r))
    return pd.concat(frames, ignore_index=True)


PAPER_R_BASELINES = ("PrivateERM", "FM")
"""The baselines the paper's-r PrivGene is paired with (FM in the LR series only)."""


def paper_r_summary(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task, ε): PrivGene's error at our r and at the paper's r, and each baseline's.

    With the paired differences (paper's r − baseline, our r − baseline) and the 95 % CI of the
    first, over the same folds and streams, for each of :data:`PAPER_R_BASELINES` the task runs
    (NaN for FM under SVM).
    """
    keys = ["dataset", "task", "repetition", "fold", "epsilon"]
    methods = ["PrivGene", PAPER_R_METHOD, *PAPER_R_BASELINES]  # a baseline the task lacks: NaN
    wide = jobs.pivot_table(index=keys, columns="method", values="error").reset_index().reindex(columns=keys + methods)
    r_ours = jobs[jobs.method == "PrivGene"].groupby(["dataset", "task", "epsilon"]).r.mean()
    r_paper = jobs[jobs.method == PAPER_R_METHOD].groupby(["dataset", "task", "epsilon"]).paper_r.first()
    rows = []
    for (dataset, task, epsilon), group in wide.groupby(["dataset", "task", "epsilon"]):
        row = {
            "dataset": dataset,
            "task": task,
            "epsilon": epsilon,
            "runs": len(group),
            "r_ours": float(r_ours[(dataset, task, epsilon)]),
            "r_paper": int(r_paper[(dataset, task, epsilon)]),
            "privgene_error": float(group["PrivGene"].mean()),
            "privgene_paper_r_error": float(group[PAPER_R_METHOD].mean()),
        }
        for baseline in PAPER_R_BASELINES:
            name = baseline.lower()
            difference = mean_confidence_interval(group[PAPER_R_METHOD] - group[baseline])
            row |= {
                f"{name}_error": float(group[baseline].mean()),
                f"paper_r_minus_{name}": difference["mean"],
                f"paper_r_minus_{name}_ci_low": difference["ci_low"],
                f"paper_r_minus_{name}_ci_high": difference["ci_high"],
                f"ours_minus_{name}": float((group["PrivGene"] - group[baseline]).mean()),
            }
        rows.append(row)
    return pd.DataFrame(rows)
