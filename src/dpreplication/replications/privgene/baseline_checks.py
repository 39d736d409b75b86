"""PrivGene: the PrivateERM baseline cross-checked (issue #32 item 8; spec ``privgene.md`` §3.4, §4).

PrivateERM (:mod:`dpreplication.learning.objective_perturbation`) decides several Figs 3–4 claims.
Two checks on one dataset's LR panel, on the repeated 5-fold splits of the comparison jobs
(:func:`~dpreplication.learning.protocol.repetition_folds`: the folds depend on (dataset,
repetition) only):

* **Library cross-check** — at each ε of ``epsilons`` and the paper's Λ, our PrivateERM against
  diffprivlib 0.6.6's ``models.LogisticRegression`` (CMS 2011 objective perturbation, its
  ``Vector`` mechanism) with the matched arguments of
  :func:`diffprivlib_logistic_parameters`: ``C = 1/(nΛ)``, ``data_norm =
  1`` and no intercept, on our ``x̃ = [x, 1]/√d`` (``‖x̃‖ ≤ 1`` from ``x ∈ [-1, 1]^{d-1}``; every
  Adult row is ±1, so ``‖x̃‖ = 1`` exactly and no row is clipped). The two draw independent noise,
  so runs are paired by (repetition, fold) only: the mean of the per-run differences with its
  Student-t 95 % interval.
* **Λ sweep** — PrivateERM at ``sweep_epsilon`` over ``sweep_regularisers`` against NoPrivacy on
  the same folds (the reference jobs' rows). The paper's Λ = 1e-12 (§3.4 [paper]) is the only one
  that is not a diagnostic: every other Λ is a choice made on the data (the best row picks it by
  its test error, with no private tuning), so a Λ that closes the gap measures what the regulariser
  can do, not a replacement baseline PrivGene should have been compared with. Every Λ below ``c/(n(e^{ε/2} − 1))`` (≈ 1e-5 on
  Adult at ε = 1) is the same mechanism: Algorithm 2 then adds ``Δ = c/(n(e^{ε/4} − 1)) − Λ``, so
  neither the total ridge nor ``ε' = ε/2`` depends on Λ (§3.4: "results are insensitive").

Every (method, Λ, ε, repetition, fold) draws from its own stream ``seeding.generator(seed,
"privgene", "baseline_checks", dataset, "lr", method, Λ, repetition, fold, ε)``; diffprivlib is
seeded with an integer drawn from its stream.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.accounting.ledger import LEDGER_COLUMNS, ledger_table, record_library, spending
from dpreplication.data import tabular
from dpreplication.learning import models, objective_perturbation
from dpreplication.learning.protocol import mean_confidence_interval, repetition_folds
from dpreplication.replications.privgene import PAPER
from dpreplication.replications.privgene.methods import task_labels, with_key_columns
from dpreplication.tables import DATA_STATUS_COLUMN

FIGURE = "baseline_checks"
TASK = "lr"
OURS, LIBRARY, NOPRIVACY = "PrivateERM", "diffprivlib", "NoPrivacy"
CROSS_CHECK, SWEEP, SWEEP_BEST = "diffprivlib", "regulariser_sweep", "regulariser_sweep_best"
"""The ``check`` of a table row: ours against diffprivlib, one Λ of the sweep against NoPrivacy, and
the sweep's Λ closest to NoPrivacy (the row a claim "no Λ closes the gap" reads)."""
KEYS = ["dataset", "repetition", "fold"]


def diffprivlib_logistic_parameters(n: int, regulariser: float) -> dict:
    """Return diffprivlib's ``LogisticRegression`` arguments that are our PrivateERM LR with Λ (PrivGene spec §3.4).

    Fitted on our features ``x̃ = [x, 1]/√d`` (bias column included, ``‖x̃‖ ≤ 1``) with
    ``fit_intercept=False``, ``data_norm = 1`` and ``C = 1/(n·Λ)``, diffprivlib's ``Vector``
    (``α = 1/C = nΛ``, ``c = ¼``, data bound ``q = 1``) computes our ``ε' = ε − 2 log(1 + c/(nΛ))``,
    our ``Δ = c/(n(e^{ε/4} − 1)) − Λ``, a noise norm ``~ Gamma(d, 2/ε')`` with a uniform direction, and
    sklearn's mean loss with the ridge ``1/(C·n) = Λ`` on every coordinate of ``f``: the same
    objective and the same law of ``b`` (:mod:`dpreplication.learning.objective_perturbation`).

    Only ``q = 1`` matches. On the raw ``[x, 1]`` (``data_norm = √(d − 1)``, ``q = √d``)
    diffprivlib 0.6.6 computes ``ε'`` and ``Δ`` from ``c·q/α`` where CMS 2011's proof (the rank-one
    Hessian ``ℓ''·x xᵀ`` has eigenvalue up to ``c·q²``) needs ``c·q²/α``: its noise would then be
    smaller than the theorem's for ``q > 1``, and no ``C`` matches ours.
    """
    if n < 1 or not regulariser > 0:
        raise ValueError(f"need n ≥ 1 and regulariser > 0, got n={n}, regulariser={regulariser}")
    return {"C": 1.0 / (n * regulariser), "data_norm": 1.0, "fit_intercept": False}


def diffprivlib_logistic_regression(
    X: np.ndarray,
    y: np.ndarray,
    epsilon: float,
    regulariser: float,
    *,
    seed: int,
    tol: float = 1e-8,
    max_iter: int = 20_000,
) -> np.ndarray:
    """Fit diffprivlib's ε-DP ``models.LogisticRegression`` (CMS 2011 objective perturbation) at our Λ: ``ω``.

    ``X`` in ``[-1, 1]^{d-1}`` without a bias column, ``y`` in ``{0, 1}``, ``regulariser`` Λ. The
    library is fitted on ``x̃ = [x, 1]/√d`` with :func:`diffprivlib_logistic_parameters` and its
    ``f`` returned as ``ω = f/√d`` (bias last, so ``ωᵀ[x, 1] = fᵀx̃``), as
    :func:`~dpreplication.learning.objective_perturbation.fit_private_erm` does. Its own
    ``BudgetAccountant`` (the global one is untouched), ``random_state = seed``, L-BFGS-B to ``tol``
    on the projected gradient; a fit that stops at ``max_iter`` raises
    :class:`~dpreplication.learning.models.ConvergenceError` (nothing is released), as ours does.
    The spend its accountant reports goes to the privacy ledger (:func:`record_library`).
    """
    import warnings

    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.models import LogisticRegression
    from sklearn.exceptions import ConvergenceWarning

    from dpreplication.learning.models import ConvergenceError, unit_norm_features

    features = unit_norm_features(np.asarray(X, dtype=float))
    accountant = BudgetAccountant()
    model = LogisticRegression(
        epsilon=epsilon, tol=tol, max_iter=max_iter, random_state=seed, accountant=accountant,
        **diffprivlib_logistic_parameters(len(features), regulariser),
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.filterwarnings("ignore", ".*The `disp` and `iprint` options", DeprecationWarning)  # its L-BFGS-B call
        try:
            model.fit(features, np.asarray(y))
        except ConvergenceWarning as warning:
            raise ConvergenceError(f"diffprivlib LogisticRegression: {warning}") from None
    record_library("diffprivlib.LogisticRegression", "diffprivlib", *accountant.total())
    return model.coef_[0] / np.sqrt(features.shape[1])


def job_points(
    epsilons, regulariser: float, sweep_epsilon: float, sweep_regularisers
) -> list[tuple[str, float, float]]:
    """Return the (method, Λ, ε) a job runs per fold, in order and without repeats."""
    points = [(method, regulariser, e) for e in epsilons for method in (OURS, LIBRARY)]
    points += [(OURS, lam, sweep_epsilon) for lam in sweep_regularisers]
    return list(dict.fromkeys((method, float(lam), float(e)) for method, lam, e in points))


def baseline_checks_job(
    data: tabular.TabularData,
    repetition: int,
    *,
    seed: int,
    epsilons,
    regulariser: float,
    sweep_epsilon: float,
    sweep_regularisers,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """One repetition: every point of :func:`job_points` on each fold (module docstring).

    Columns: dataset, task, method, regulariser, epsilon, repetition, fold, n_train, n_test, error,
    failure (a solver that did not converge: ``error`` NaN), ``data_status`` (diffprivlib rows:
    why not computed, e.g. the library is absent) and the release's privacy ledger
    (:data:`~dpreplication.accounting.ledger.LEDGER_COLUMNS`, budgeted at its ε).
    """
    points = job_points(epsilons, regulariser, sweep_epsilon, sweep_regularisers)
    splits = repetition_folds(len(data.features), folds, seed, PAPER, data.name, repetition)
    rows = []
    for fold in range(folds) if use_folds is None else use_folds:
        train, test = splits[fold]
        train_x, train_y, test_x = data.features[train], data.labels[train], data.features[test]
        y_pm, truth = task_labels("svm", train_y), task_labels(TASK, data.labels[test])
        for method, lam, epsilon in points:
            stream = seeding.generator(seed, PAPER, FIGURE, data.name, TASK, method, lam, repetition, fold, epsilon)
            error, failure, status = np.nan, "", ""
            with spending(epsilon) as ledger:
                try:
                    omega = (
                        objective_perturbation.fit_private_erm(train_x, y_pm, epsilon, stream, regulariser=lam)
                        if method == OURS
                        else diffprivlib_logistic_regression(
                            train_x, train_y, epsilon, lam, seed=int(stream.integers(2**32))
                        )
                    )
                    error = float(models.misclassification_rate(test_x, truth, omega, TASK))
                except models.ConvergenceError as problem:
                    failure = f"{type(problem).__name__}: {problem}"
                except ImportError as problem:
                    status = f"missing: diffprivlib is not installed ({problem})"
            rows.append(
                (fold, len(train), len(test), method, lam, epsilon, error, failure, status, *ledger.summary().values())
            )
    columns = ["fold", "n_train", "n_test", "method", "regulariser", "epsilon", "error", "failure", DATA_STATUS_COLUMN]
    frame = pd.DataFrame(rows, columns=columns + LEDGER_COLUMNS)
    frame = with_key_columns(frame, dataset=data.name, task=TASK, repetition=repetition)
    order = ["dataset", "task", "method", "regulariser", "epsilon", "repetition", "fold", "n_train", "n_test"]
    return frame[order + ["error", "failure", DATA_STATUS_COLUMN, *LEDGER_COLUMNS]]


def baseline_checks_ledger(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method, Λ, ε): the releases' ledgers against their ε (diffprivlib: as its accountant reports).

    Rows not computed (``data_status``, e.g. diffprivlib absent) released nothing and are left out.
    """
    computed = jobs[jobs[DATA_STATUS_COLUMN].fillna("").astype(str) == ""]
    return ledger_table(computed, ["dataset", "method", "regulariser"])


def _interval(prefix: str, values) -> dict:
    summary = mean_confidence_interval(values)
    return {prefix: summary["mean"], f"{prefix}_ci_low": summary["ci_low"], f"{prefix}_ci_high": summary["ci_high"]}


def _paired_row(check: str, dataset: str, epsilon: float, lam: float, method: pd.Series, baseline: pd.Series,
                baseline_name: str, status: str) -> dict:  # fmt: skip
    """One table row: ``method`` and ``baseline`` errors indexed by (dataset, repetition, fold), paired."""
    pairs = pd.concat([method.rename("a"), baseline.rename("b")], axis=1, join="inner")
    complete = pairs.dropna()
    return {
        "check": check,
        "dataset": dataset,
        "task": TASK,
        "epsilon": epsilon,
        "regulariser": lam,
        "baseline": baseline_name,
        "runs": len(complete),
        "failures": int(pairs.isna().any(axis=1).sum()),
        **_interval("error", complete.a),
        **_interval("baseline_error", complete.b),
        **_interval("difference", complete.a - complete.b),
        DATA_STATUS_COLUMN: status,
    }


def baseline_checks_table(jobs: pd.DataFrame, references: pd.DataFrame, *, sweep_epsilon: float) -> pd.DataFrame:
    """Return the published table: per dataset, the cross-check rows, the sweep rows and the sweep's best Λ.

    ``jobs``: the rows of :func:`baseline_checks_job`; ``references``: the reference jobs' rows
    (NoPrivacy of the same folds is read from them). ``difference`` is ``error − baseline_error``
    per (repetition, fold), averaged, with its 95 % interval (``difference_ci_low/high``) over
    ``runs`` pairs; ``error`` and ``baseline_error`` carry their own intervals. A cross-check row
    whose library is absent has NaN values and the reason in ``data_status``. The sweep's best
    row repeats the Λ with the smallest mean ``difference`` (its own interval, not adjusted for
    the choice).
    """
    rows = []
    noprivacy = references[(references.method == NOPRIVACY) & (references.task == TASK)]
    for dataset, panel in jobs.groupby("dataset", sort=False):
        ours, library = panel[panel.method == OURS], panel[panel.method == LIBRARY]
        for (lam, epsilon), runs in library.groupby(["regulariser", "epsilon"], sort=False):
            mine = ours[(ours.regulariser == lam) & (ours.epsilon == epsilon)].set_index(KEYS).error
            status = next((s for s in runs[DATA_STATUS_COLUMN] if isinstance(s, str) and s), "")
            rows.append(_paired_row(CROSS_CHECK, dataset, epsilon, lam, mine, runs.set_index(KEYS).error, LIBRARY,
                                    status))  # fmt: skip
        reference = noprivacy[noprivacy.dataset == dataset].set_index(KEYS).error
        unpaired = panel.set_index(KEYS).index.unique().difference(reference.index)
        if len(unpaired):
            raise ValueError(
                f"{dataset}: no NoPrivacy reference row for {len(unpaired)} (repetition, fold) of the baseline checks "
                "(they read the Figs 3–4 reference jobs: run at most privgene.comparison.repetitions repetitions)"
            )
        sweep = [
            _paired_row(SWEEP, dataset, sweep_epsilon, lam, runs.set_index(KEYS).error, reference, NOPRIVACY, "")
            for lam, runs in ours[np.isclose(ours.epsilon, sweep_epsilon)].groupby("regulariser", sort=False)
        ]
        rows += sweep
        if sweep:
            best = min(sweep, key=lambda row: np.inf if np.isnan(row["difference"]) else row["difference"])
            rows.append({**best, "check": SWEEP_BEST})
    return pd.DataFrame(rows)
