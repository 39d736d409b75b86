"""PrivGene: the PrivateERM baseline cross-checked (issues #32 item 8, #52 item 5; spec ``privgene.md`` §3.4, §4).

PrivateERM (:mod:`dpreplication.learning.objective_perturbation`) decides several Figs 3–4 claims.
Two checks, on the repeated 5-fold splits of the comparison jobs
(:func:`~dpreplication.learning.protocol.repetition_folds`: the folds depend on (dataset,
repetition) only):

* **Library cross-check** — at every ε of Figs 3–4 and for both tasks, the PrivateERM errors the
  comparison jobs published (LR and the Huber SVM, with their Λ and h: spec §3.4) against the same
  mechanism drawn by diffprivlib 0.6.6 on an independent feature scaling: each row ``[x, 1]``
  normalised to unit norm by scikit-learn's ``Normalizer`` (the spec's "per-row normalisation",
  CMS 2011's data bound ``‖x‖ ≤ 1``), where ours divides by √d. On Adult, every row of which has
  norm √d, the two scalings are one; on Banking (mean row norm 0.96·√d) they differ by a few
  percent. LR is the library's ``models.LogisticRegression`` (its ``Vector`` objective
  perturbation, loss and solver) with :func:`diffprivlib_logistic_parameters`; the Huber SVM, which
  the library does not ship, is its ``mechanisms.Vector`` (``c = 1/(2h)``, ``α = nΛ``) perturbing
  a Huber loss written here, minimised by L-BFGS-B (:func:`diffprivlib_huber_svm`). The two draw
  independent noise, so runs are paired by (repetition, fold) only: per ε the mean of the per-run
  differences (ours − library) with its Student-t 95 % interval, and per panel the largest
  absolute difference over the ε grid with its Bonferroni interval (:func:`largest_difference`).
* **Λ sweep** — PrivateERM (LR) at ``sweep_epsilon`` over ``sweep_regularisers`` against NoPrivacy
  on the same folds (the reference jobs' rows). The paper's Λ = 1e-12 (§3.4 [paper]) is the only
  one that is not a diagnostic: every other Λ is a choice made on the data (the best row picks it
  by its test error, with no private tuning), so a Λ that closes the gap measures what the
  regulariser can do, not a replacement baseline PrivGene should have been compared with. Every Λ
  below ``c/(n(e^{ε/2} − 1))`` (≈ 1e-5 on Adult at ε = 1) is the same mechanism: Algorithm 2 then
  adds ``Δ = c/(n(e^{ε/4} − 1)) − Λ``, so neither the total ridge nor ``ε' = ε/2`` depends on Λ
  (§3.4: "results are insensitive").

Every (method, task, Λ, ε, repetition, fold) of a job draws from its own stream
``seeding.generator(seed, "privgene", "baseline_checks", dataset, task, method, Λ, repetition,
fold, ε)``; diffprivlib is seeded with an integer drawn from its stream.
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
from dpreplication.replications.privgene.methods import MethodSettings, private_erm_loss, task_labels, with_key_columns
from dpreplication.statistics.intervals import ONE_SIDED_LEVEL, abs_bounds, t_bounds
from dpreplication.tables import DATA_STATUS_COLUMN

FIGURE = "baseline_checks"
TASKS = ("lr", "svm")
OURS, LIBRARY, NOPRIVACY = "PrivateERM", "diffprivlib", "NoPrivacy"
CROSS_CHECK, CROSS_CHECK_GRID = "diffprivlib", "diffprivlib_every_epsilon"
SWEEP, SWEEP_BEST = "regulariser_sweep", "regulariser_sweep_best"
"""The ``check`` of a table row: ours against diffprivlib at one ε, the largest of those over the ε
grid, one Λ of the sweep against NoPrivacy, and the sweep's Λ closest to NoPrivacy (the row a claim
"no Λ closes the gap" reads)."""
KEYS = ["dataset", "repetition", "fold"]


def row_normalised_features(X: np.ndarray) -> np.ndarray:
    """``[x, 1]/‖[x, 1]‖₂`` by scikit-learn's ``Normalizer``: every row on the unit sphere (CMS 2011's ``‖x‖ ≤ 1``).

    A positive rescaling of each row keeps the sign of ``fᵀ[x, 1]``, so a model ``f`` fitted on
    these rows classifies ``[x, 1]`` as it is.
    """
    from sklearn.preprocessing import Normalizer

    return Normalizer(norm="l2").fit_transform(models.with_bias(np.asarray(X, dtype=float)))


def diffprivlib_logistic_parameters(n: int, regulariser: float) -> dict:
    """Return diffprivlib's ``LogisticRegression`` arguments that are our PrivateERM LR with Λ (PrivGene spec §3.4).

    Fitted on features of norm at most 1 (bias column included) with ``fit_intercept=False``,
    ``data_norm = 1`` and ``C = 1/(n·Λ)``, diffprivlib's ``Vector`` (``α = 1/C = nΛ``, ``c = ¼``,
    data bound ``q = 1``) computes our ``ε' = ε − 2 log(1 + c/(nΛ))``, our ``Δ = c/(n(e^{ε/4} −
    1)) − Λ``, a noise norm ``~ Gamma(d, 2/ε')`` with a uniform direction, and sklearn's mean loss
    with the ridge ``1/(C·n) = Λ`` on every coordinate of ``f``: the same objective and the same
    law of ``b`` (:mod:`dpreplication.learning.objective_perturbation`).

    Only ``q = 1`` matches. On the raw ``[x, 1]`` (``data_norm = √(d − 1)``, ``q = √d``)
    diffprivlib 0.6.6 computes ``ε'`` and ``Δ`` from ``c·q/α`` where CMS 2011's proof (the rank-one
    Hessian ``ℓ''·x xᵀ`` has eigenvalue up to ``c·q²``) needs ``c·q²/α``: its noise would then be
    smaller than the theorem's for ``q > 1``, and no ``C`` matches ours.
    """
    if n < 1 or not regulariser > 0:
        raise ValueError(f"need n ≥ 1 and regulariser > 0, got n={n}, regulariser={regulariser}")
    return {"C": 1.0 / (n * regulariser), "data_norm": 1.0, "fit_intercept": False}


def diffprivlib_logistic_regression(
    features: np.ndarray,
    y: np.ndarray,
    epsilon: float,
    regulariser: float,
    *,
    seed: int,
    gtol: float = 1e-8,
    max_iter: int = 20_000,
) -> np.ndarray:
    """Fit diffprivlib's ε-DP ``models.LogisticRegression`` (CMS 2011 objective perturbation) at our Λ: ``f``.

    ``features`` of norm at most 1 with the bias column (:func:`row_normalised_features`), ``y`` in
    ``{0, 1}``, ``regulariser`` Λ; the library's arguments are
    :func:`diffprivlib_logistic_parameters`. Its own ``BudgetAccountant`` (the global one is
    untouched), ``random_state = seed``, its L-BFGS-B to the stationarity ours reaches: the library
    minimises the sum over the ``n`` rows, so its ``tol`` on the projected gradient is ``gtol·n``
    (``max |∇| ≤ gtol`` on the mean, as ours). A fit that stops at ``max_iter`` raises
    :class:`~dpreplication.learning.models.ConvergenceError` (nothing is released), as ours does.
    The spend its accountant reports goes to the privacy ledger (:func:`record_library`).
    """
    import warnings

    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.models import LogisticRegression
    from sklearn.exceptions import ConvergenceWarning

    accountant = BudgetAccountant()
    model = LogisticRegression(
        epsilon=epsilon, tol=gtol * len(features), max_iter=max_iter, random_state=seed, accountant=accountant,
        **diffprivlib_logistic_parameters(len(features), regulariser),
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.filterwarnings("ignore", ".*The `disp` and `iprint` options", DeprecationWarning)  # its L-BFGS-B call
        try:
            model.fit(features, np.asarray(y))
        except ConvergenceWarning as warning:
            raise models.ConvergenceError(f"diffprivlib LogisticRegression: {warning}") from None
    record_library("diffprivlib.LogisticRegression", "diffprivlib", *accountant.total())
    return model.coef_[0]


def huber_loss_sum(f: np.ndarray, features: np.ndarray, y_pm: np.ndarray, h: float, alpha: float):
    """``Σᵢ ℓ_h(yᵢ fᵀx̃ᵢ) + (α/2)‖f‖²`` and its gradient: the objective CMS 2011 perturbs, in diffprivlib's sum scaling.

    ``ℓ_h(z)`` is 0 above ``1 + h``, ``(1 + h − z)²/(4h)`` within ``h`` of 1 and ``1 − z`` below
    ``1 − h`` (CMS 2011 §3.4.2; ``ℓ'' ≤ 1/(2h)``), written here apart from the package's
    :func:`~dpreplication.learning.models.huber_hinge`.
    """
    z = y_pm * (features @ f)
    quadratic, linear = np.abs(1.0 - z) <= h, z < 1.0 - h
    loss = np.where(linear, 1.0 - z, np.where(quadratic, (1.0 + h - z) ** 2 / (4.0 * h), 0.0))
    slope = np.where(linear, -1.0, np.where(quadratic, -(1.0 + h - z) / (2.0 * h), 0.0))
    return loss.sum() + 0.5 * alpha * f @ f, features.T @ (slope * y_pm) + alpha * f


def diffprivlib_huber_svm(
    features: np.ndarray,
    y_pm: np.ndarray,
    epsilon: float,
    regulariser: float,
    huber_h: float,
    *,
    seed: int,
    gtol: float = 1e-8,
    max_iter: int = 20_000,
) -> np.ndarray:
    """Fit the Huber SVM under diffprivlib's ε-DP ``mechanisms.Vector`` (CMS 2011 Algorithm 2): ``f``.

    ``features`` of norm at most 1 with the bias column (:func:`row_normalised_features`), ``y_pm``
    in ``{−1, +1}``. The library perturbs :func:`huber_loss_sum` with ``function_sensitivity = 1/(2h)``,
    ``data_sensitivity = 1``, ``α = nΛ`` (its ``ε'``, extra ridge and ``Gamma(d, 2/ε')`` noise
    norm); the perturbed objective over ``n`` (same minimiser) is solved by L-BFGS-B to ``max |∇| ≤
    gtol`` as ours is, and an unconverged fit raises (nothing released). The library keeps no
    accountant for a mechanism: its ε goes to the ledger as the mechanism states it.
    """
    from diffprivlib.mechanisms import Vector

    n, d = features.shape
    alpha = n * regulariser
    vector = Vector(
        epsilon=epsilon, function_sensitivity=1.0 / (2.0 * huber_h), data_sensitivity=1.0, dimension=d, alpha=alpha,
        random_state=seed,
    )  # fmt: skip
    perturbed = vector.randomise(lambda f: huber_loss_sum(f, features, y_pm, huber_h, alpha))

    def mean_objective(f):
        value, gradient = perturbed(f)
        return value / n, gradient / n

    f = models.lbfgs_minimise(mean_objective, np.zeros(d), gtol, max_iter, "diffprivlib Vector, Huber SVM")
    record_library("diffprivlib.Vector", "diffprivlib", vector.epsilon, vector.delta)
    return f


def job_points(tasks, epsilons, sweep_epsilon: float, sweep_regularisers) -> list[tuple[str, str, float | None, float]]:
    """Return the (method, task, Λ, ε) a job runs per fold, in order.

    The library at every (task, ε) (Λ ``None``: the task's PrivateERM Λ, :func:`private_erm_loss`),
    then our LR over the sweep's Λ.
    """
    points = [(LIBRARY, task, None, float(e)) for task in tasks for e in epsilons]
    return points + [(OURS, "lr", float(lam), float(sweep_epsilon)) for lam in dict.fromkeys(sweep_regularisers)]


def _library_fit(task: str, features, labels, epsilon, regulariser, huber_h, seed) -> np.ndarray:
    if task == "lr":
        return diffprivlib_logistic_regression(features, labels, epsilon, regulariser, seed=seed)
    return diffprivlib_huber_svm(features, task_labels("svm", labels), epsilon, regulariser, huber_h, seed=seed)


def baseline_checks_job(
    data: tabular.TabularData,
    repetition: int,
    *,
    seed: int,
    tasks,
    epsilons,
    private_erm: dict,
    sweep_epsilon: float,
    sweep_regularisers,
    folds: int,
    use_folds,
) -> pd.DataFrame:
    """One repetition: every point of :func:`job_points` on each fold (module docstring).

    ``private_erm`` holds PrivateERM's settings of the comparison jobs (``erm_lr_regulariser``,
    ``erm_svm_regulariser``, ``erm_huber_h``, ``svm_C``). Columns: dataset, task, method,
    regulariser, epsilon, repetition, fold, n_train, n_test, error, failure (a solver that did not
    converge: ``error`` NaN), ``data_status`` (diffprivlib rows: why not computed, e.g. the library
    is absent) and the release's privacy ledger (:data:`~dpreplication.accounting.ledger.LEDGER_COLUMNS`,
    budgeted at its ε).
    """
    settings = MethodSettings(**private_erm)
    points = job_points(tasks, epsilons, sweep_epsilon, sweep_regularisers)
    splits = repetition_folds(len(data.features), folds, seed, PAPER, data.name, repetition)
    rows = []
    for fold in range(folds) if use_folds is None else use_folds:
        train, test = splits[fold]
        train_x, train_y, test_x = data.features[train], data.labels[train], data.features[test]
        library_features = None
        for method, task, lam, epsilon in points:
            loss, task_lam = private_erm_loss(task, len(train), settings)
            lam = task_lam if lam is None else lam
            stream = seeding.generator(seed, PAPER, FIGURE, data.name, task, method, lam, repetition, fold, epsilon)
            error, failure, status = np.nan, "", ""
            with spending(epsilon) as ledger:
                try:
                    if method == OURS:
                        omega = objective_perturbation.fit_private_erm(
                            train_x, task_labels("svm", train_y), epsilon, stream, loss=loss, regulariser=lam,
                            huber_h=settings.erm_huber_h,
                        )  # fmt: skip
                    else:
                        library_seed = int(stream.integers(2**32))
                        if library_features is None:
                            library_features = row_normalised_features(train_x)
                        omega = _library_fit(task, library_features, train_y, epsilon, lam, settings.erm_huber_h,
                                             library_seed)  # fmt: skip
                    error = float(
                        models.misclassification_rate(test_x, task_labels(task, data.labels[test]), omega, task)
                    )
                except models.ConvergenceError as problem:
                    failure = f"{type(problem).__name__}: {problem}"
                except ImportError as problem:
                    status = f"missing: diffprivlib is not installed ({problem})"
            rows.append(
                (fold, len(train), len(test), task, method, lam, epsilon, error, failure, status,
                 *ledger.summary().values())
            )  # fmt: skip
    columns = ["fold", "n_train", "n_test", "task", "method", "regulariser", "epsilon", "error", "failure",
               DATA_STATUS_COLUMN]  # fmt: skip
    frame = pd.DataFrame(rows, columns=columns + LEDGER_COLUMNS)
    frame = with_key_columns(frame, dataset=data.name, repetition=repetition)
    order = ["dataset", "task", "method", "regulariser", "epsilon", "repetition", "fold", "n_train", "n_test"]
    return frame[order + ["error", "failure", DATA_STATUS_COLUMN, *LEDGER_COLUMNS]]


def baseline_checks_ledger(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task, method, ε): the releases' ledgers against their ε (diffprivlib: as it reports).

    Rows not computed (``data_status``, e.g. diffprivlib absent) released nothing and are left out.
    The Huber SVM's Λ depends on the fold's size, so the ledger is not split by Λ but by task.
    """
    computed = jobs[jobs[DATA_STATUS_COLUMN].fillna("").astype(str) == ""]
    return ledger_table(computed, ["dataset", "task", "method"])


def _interval(prefix: str, values) -> dict:
    summary = mean_confidence_interval(values)
    return {prefix: summary["mean"], f"{prefix}_ci_low": summary["ci_low"], f"{prefix}_ci_high": summary["ci_high"]}


def _paired_row(check: str, dataset: str, task: str, epsilon: float, lam: float, method: pd.Series,
                baseline: pd.Series, baseline_name: str, status: str) -> dict:  # fmt: skip
    """One table row: ``method`` and ``baseline`` errors indexed by (dataset, repetition, fold), paired."""
    pairs = pd.concat([method.rename("a"), baseline.rename("b")], axis=1, join="inner")
    complete = pairs.dropna()
    difference = complete.a - complete.b
    return {
        "check": check,
        "dataset": dataset,
        "task": task,
        "epsilon": epsilon,
        "regulariser": lam,
        "baseline": baseline_name,
        "runs": len(complete),
        "failures": int(pairs.isna().any(axis=1).sum()),
        **_interval("error", complete.a),
        **_interval("baseline_error", complete.b),
        **_interval("difference", difference),
        "difference_se": mean_confidence_interval(difference)["sem"],
        DATA_STATUS_COLUMN: status,
    }


def largest_difference(cells: pd.DataFrame) -> dict:
    """Return the largest ``|difference|`` over one panel's ε cells, with its interval (``pair_summary``'s rule).

    Over ``k`` cells, each bound at the level it needs for one-sided 2.5 %: the lower bound is the
    largest cell's ``|d|`` lower bound with both sides at ``α/k`` (any cell could be the one that
    errs: Bonferroni), the upper bound the largest cell's ``|d|`` upper bound with both sides at
    ``α/2`` (the cell holding the true maximum must be below it). ``max_abs_difference_runs`` is the
    runs of the cell that sets the value.
    """
    k = len(cells)
    d, se, runs = cells.difference.to_numpy(), cells.difference_se.to_numpy(), cells.runs.to_numpy()
    low = abs_bounds(*t_bounds(d, se, runs, ONE_SIDED_LEVEL / k))[0]
    high = abs_bounds(*t_bounds(d, se, runs, ONE_SIDED_LEVEL / 2))[1]
    widest = int(np.nanargmax(np.abs(d))) if np.isfinite(d).any() else 0
    return {
        "max_abs_difference": float(np.abs(d[widest])),
        "max_abs_difference_ci_low": float(np.max(low)),
        "max_abs_difference_ci_high": float(np.max(high)),
        "max_abs_difference_runs": int(runs[widest]),
        "max_abs_difference_epsilon": float(cells.epsilon.iloc[widest]),
    }


def _published_private_erm(comparison: pd.DataFrame, dataset: str, task: str, library: pd.DataFrame) -> pd.DataFrame:
    """Return the comparison jobs' PrivateERM errors at ``library``'s (ε, repetition, fold); a missing one raises."""
    ours = comparison[(comparison.method == OURS) & (comparison.dataset == dataset) & (comparison.task == task)]
    ours = ours.set_index(["epsilon", *KEYS]).error
    wanted = library.set_index(["epsilon", *KEYS]).index
    unpaired = wanted.difference(ours.index)
    if len(unpaired):
        raise ValueError(
            f"{dataset} {task}: no PrivateERM row of the comparison jobs for {len(unpaired)} (ε, repetition, fold) "
            "of the baseline checks (they read the Figs 3–4 jobs: run at most privgene.comparison.repetitions "
            "repetitions on its datasets and ε grid)"
        )
    return ours


def baseline_checks_table(
    jobs: pd.DataFrame, comparison: pd.DataFrame, references: pd.DataFrame, *, sweep_epsilon: float
) -> pd.DataFrame:
    """Return the published table: per dataset, the cross-check rows and their grid maximum per task, the sweep rows and its best Λ.

    ``jobs``: the rows of :func:`baseline_checks_job`; ``comparison``: the Figs 3–4 job rows (our
    PrivateERM is read from them); ``references``: the reference jobs' rows (NoPrivacy of the same
    folds). ``difference`` is ``error − baseline_error`` per (repetition, fold), averaged, with its
    95 % interval (``difference_ci_low/high``) and standard error over ``runs`` pairs; ``error``
    and ``baseline_error`` carry their own intervals. A cross-check row whose library is absent has
    NaN values and the reason in ``data_status``. The grid row (``check``
    :data:`CROSS_CHECK_GRID`) holds :func:`largest_difference`; the sweep's best row repeats the Λ
    with the smallest mean ``difference`` (its own interval, not adjusted for the choice).
    """
    rows = []
    noprivacy = references[(references.method == NOPRIVACY) & (references.task == "lr")]
    for dataset, panel in jobs.groupby("dataset", sort=False):
        library = panel[panel.method == LIBRARY]
        for task, runs in library.groupby("task", sort=False):
            ours = _published_private_erm(comparison, dataset, task, runs)
            cells = []
            for epsilon, cell in runs.groupby("epsilon", sort=False):
                status = next((s for s in cell[DATA_STATUS_COLUMN] if isinstance(s, str) and s), "")
                mine = ours.xs(epsilon, level="epsilon")
                cells.append(_paired_row(CROSS_CHECK, dataset, task, epsilon, np.nan, mine, cell.set_index(KEYS).error,
                                         LIBRARY, status))  # fmt: skip
            rows += cells
            status = next((row[DATA_STATUS_COLUMN] for row in cells if row[DATA_STATUS_COLUMN]), "")
            grid = {**cells[0], "check": CROSS_CHECK_GRID, "epsilon": np.nan, DATA_STATUS_COLUMN: status,
                    "runs": min(row["runs"] for row in cells), "failures": sum(row["failures"] for row in cells)}  # fmt: skip
            for column in ("error", "baseline_error", "difference"):
                grid.update({column: np.nan, f"{column}_ci_low": np.nan, f"{column}_ci_high": np.nan})
            rows.append({**grid, "difference_se": np.nan, **largest_difference(pd.DataFrame(cells))})
        reference = noprivacy[noprivacy.dataset == dataset].set_index(KEYS).error
        ours = panel[(panel.method == OURS) & np.isclose(panel.epsilon, sweep_epsilon)]
        unpaired = ours.set_index(KEYS).index.unique().difference(reference.index)
        if len(unpaired):
            raise ValueError(
                f"{dataset}: no NoPrivacy reference row for {len(unpaired)} (repetition, fold) of the baseline checks "
                "(they read the Figs 3–4 reference jobs: run at most privgene.comparison.repetitions repetitions)"
            )
        sweep = [
            _paired_row(SWEEP, dataset, "lr", sweep_epsilon, lam, runs.set_index(KEYS).error, reference, NOPRIVACY, "")
            for lam, runs in ours.groupby("regulariser", sort=False)
        ]
        rows += sweep
        if sweep:
            best = min(sweep, key=lambda row: np.inf if np.isnan(row["difference"]) else row["difference"])
            rows.append({**best, "check": SWEEP_BEST})
    return pd.DataFrame(rows)
