"""DaRRM private prediction: ablations of DP-SGD within the paper's protocol (issue "DaRRM on MNIST").

Are the private MNIST teachers weak because of the training configuration? Each configuration
fixes the epochs, the optimiser and its learning rate, and a privacy budget:

* ``stated``: the teachers' stated ``(ε_teacher, Δ)`` under our RDP accountant. With ``epochs``
  null it is the pipeline's protocol itself (σ of the config, the most steps within ε); with a
  number of epochs ``E`` the steps are ``E⌈n/B⌉`` and σ is recalibrated to the same ε
  (:func:`~dpreplication.accounting.rdp.calibrate_noise_multiplier`);
* a named budget of ``budgets`` (the authors' earlier ICLR run: ε = 0.1075 at δ = 1e-3, 10
  epochs), σ from Opacus' ``get_noise_multiplier`` with that budget's accountant (PRV).

Every configuration trains teachers ``0..n−1`` on the same shards with the same seeds as the
pipeline (common random numbers: the configurations differ only in what they change), so the
``stated`` configuration reproduces the cached votes of the pipeline (checked, on CPU). A row
reports the per-teacher accuracies and collapse
(:func:`~dpreplication.replications.darrm_teacher_quality.vote_diagnostics`), ε of the budget's
accountant and of ours at the stated Δ, and — when all K teachers are trained — the exact
expected accuracies of GNMax, DaRRM_Sub and DaRRM_opt over the test pool at the stated
per-query budget ``(mε_teacher, mΔ)``. ``best`` marks the configuration within the stated budget
whose teachers are the most accurate on average; :func:`best_configuration_votes` completes it to
K teachers for the accuracy table of the best configuration.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from dpreplication.accounting import rdp
from dpreplication.replications import darrm_prediction as prediction
from dpreplication.replications import darrm_teacher_quality as quality
from dpreplication.replications import darrm_teachers as teachers
from dpreplication.scorecard.claims import DATA_STATUS_COLUMN

log = logging.getLogger(__name__)

STATED = "stated"
ABLATION_SETTINGS = ("mean_probability", "gnmax_max_order", "solver")
"""Keys of the private-prediction section the ablation reads besides the private teachers' own."""


def ablation_settings(section: dict, ablation: dict, solver: str) -> dict:
    """Return the settings the ablation depends on.

    The private teachers' settings of its dataset
    (:func:`~dpreplication.replications.darrm_teachers.teacher_settings`), γ_opt's and GNMax's
    parameters, and the ablation section itself (so that e.g. the query counts do not rerun it).
    """
    chosen = teachers.teacher_settings(section, ablation["dataset"], "private")
    return {**chosen, **{key: section[key] for key in ABLATION_SETTINGS[:-1]}, "solver": solver, "ablation": ablation}


@dataclass(frozen=True)
class TrainingPlan:
    """One configuration, resolved: DP-SGD steps and σ, and its privacy under two accountants.

    Attributes
    ----------
    epsilon, delta, accountant
        The configuration's own budget as its accountant reports it.
    epsilon_stated_delta : float
        Our RDP ε at the stated Δ, which decides ``within_stated_budget`` (≤ the stated ε_teacher).
    """

    config: str
    budget: str
    epochs: float
    steps: int
    optimiser: str
    learning_rate: float
    noise_multiplier: float
    epsilon: float
    delta: float
    accountant: str
    epsilon_stated_delta: float
    within_stated_budget: bool


def training_plan(config: dict, settings: dict, sample_rate: float) -> TrainingPlan:
    """Resolve ``config`` (module docstring) at Poisson rate ``sample_rate`` (the largest of the shards)."""
    ablation = settings["ablation"]
    stated_epsilon = settings["datasets"][ablation["dataset"]]["epsilon_teacher"]
    Delta, budget = settings["Delta"], config["budget"]
    if config["epochs"] is None:
        if budget != STATED:
            raise ValueError(
                f"configuration {config['name']}: the pipeline's protocol (epochs null) has the stated budget"
            )
        sigma = float(settings["noise_multiplier"])
        steps = teachers.private_steps(settings, stated_epsilon, sample_rate)
    else:
        steps = int(round(config["epochs"] / sample_rate))
        if budget == STATED:
            sigma = rdp.calibrate_noise_multiplier(stated_epsilon, Delta, sample_rate, steps)
        else:
            target = ablation["budgets"][budget]
            sigma = rdp.opacus_noise_multiplier(
                target["epsilon"], target["delta"], sample_rate, steps, target["accountant"]
            )
    ours = rdp.dp_sgd_epsilon(sigma, sample_rate, steps, Delta)
    if budget == STATED:
        epsilon, delta, accountant = ours, Delta, "rdp"
    else:
        target = ablation["budgets"][budget]
        delta, accountant = target["delta"], target["accountant"]
        epsilon = rdp.opacus_epsilon(sigma, sample_rate, steps, delta, accountant)
    return TrainingPlan(
        config["name"],
        budget,
        steps * sample_rate,
        steps,
        config["optimizer"],
        float(config["learning_rate"]),
        sigma,
        epsilon,
        delta,
        accountant,
        ours,
        bool(ours <= stated_epsilon * (1 + 1e-12)),
    )


def train_configuration(files: dict, settings: dict, config: dict, indices, seed: int, threads: int = 1):
    """Train the private teachers ``indices`` of the ablation's dataset under ``config``.

    Returns
    -------
    plan : TrainingPlan
        The resolved plan.
    votes : numpy.ndarray
        The votes, ``(len(indices), n_test)``.
    pool : tuple
        The test pool ``(labels, test_index)``.
    rows : list of dict
        One dict per teacher: its diagnostics and training seconds.
    """
    from dpreplication.learning import teachers as learning

    dataset = settings["ablation"]["dataset"]
    (x_train, y_train), (x_test, y_test, test_index), shards = teachers.training_data(files, dataset, settings)
    batch = settings["batch_size"]
    sample_rate = max(learning.poisson_sample_rate(stop - start, batch) for start, stop in shards)
    plan = training_plan(config, settings, sample_rate)
    device = learning.configure_torch(threads)
    votes, rows = [], []
    for teacher in indices:
        start, stop = shards[teacher]
        model, record = learning.train_private(
            x_train[start:stop],
            y_train[start:stop],
            plan.steps,
            plan.noise_multiplier,
            settings["max_grad_norm"],
            plan.learning_rate,
            batch,
            teachers.teacher_seed(seed, dataset, "private", teacher),
            device,
            optimiser=plan.optimiser,
        )
        if record.noise_multiplier != plan.noise_multiplier or record.steps != plan.steps:
            raise RuntimeError(f"{plan.config} teacher {teacher}: Opacus trained with {record}, not {plan}")
        votes.append(learning.predict(model, x_test, device))
        diagnostics = quality.vote_diagnostics(votes[-1], y_test, settings["classes"])
        rows.append({"config": plan.config, "teacher": teacher, **diagnostics, "seconds": record.seconds})
        log.info(
            "%s teacher %d: %d steps (σ = %.4f, %s, lr %g) in %.1fs, test accuracy %.4f",
            plan.config,
            teacher,
            plan.steps,
            plan.noise_multiplier,
            plan.optimiser,
            plan.learning_rate,
            record.seconds,
            diagnostics["accuracy"],
        )
    return plan, np.stack(votes), (y_test, test_index), rows


def aggregator_expectations(private_votes, nonprivate_votes, truth, settings: dict, m: int) -> dict:
    """Exact expected accuracy over the pool of GNMax, DaRRM_Sub and DaRRM_opt.

    At the stated per-query budget ``(mε_teacher, mΔ)``
    (:func:`~dpreplication.replications.darrm_prediction.expected_accuracies`).
    """
    dataset = settings["ablation"]["dataset"]
    epsilon, delta = prediction.query_budget(settings, dataset, m)
    sigma = rdp.gnmax_noise_scale(epsilon, delta, settings["gnmax_max_order"]).sigma
    gamma = prediction.gamma_opt(settings, dataset, m, settings["solver"])
    exact = prediction.expected_accuracies(private_votes, nonprivate_votes, truth, settings["classes"], m, sigma, gamma)
    return {f"{method}_expected": float(values.mean()) for method, values in exact.items()}


ABLATION_COLUMNS = [
    "config",
    "budget",
    "epochs",
    "steps",
    "optimizer",
    "learning_rate",
    "sigma",
    "epsilon",
    "delta",
    "accountant",
    "epsilon_stated_delta",
    "within_stated_budget",
    "teachers",
    "accuracy_mean",
    "accuracy_min",
    "accuracy_max",
    "rate_positive_class_mean",
    "collapsed_teachers",
    "votes_as_pipeline",
    "m",
    "gnmax_expected",
    "sub_expected",
    "opt_expected",
    "opt_minus_gnmax_expected",
    "best",
    DATA_STATUS_COLUMN,
]


def summary_row(plan: TrainingPlan, rows: list[dict]) -> dict:
    """Return the table row of one configuration from its per-teacher diagnostics."""
    frame = pd.DataFrame(rows)
    resolved = asdict(plan)
    return {
        **{key: resolved[key] for key in ("config", "budget", "epochs", "steps", "epsilon", "delta", "accountant")},
        "optimizer": plan.optimiser,
        "learning_rate": plan.learning_rate,
        "sigma": plan.noise_multiplier,
        "epsilon_stated_delta": plan.epsilon_stated_delta,
        "within_stated_budget": plan.within_stated_budget,
        "teachers": len(frame),
        "accuracy_mean": frame.accuracy.mean(),
        "accuracy_min": frame.accuracy.min(),
        "accuracy_max": frame.accuracy.max(),
        "rate_positive_class_mean": frame.rate_positive_class.mean(),
        "collapsed_teachers": int(frame.collapsed.sum()),
        DATA_STATUS_COLUMN: "",
    }


def mark_best(table: pd.DataFrame) -> pd.DataFrame:
    """Mark as ``best`` the configuration within the stated budget with the highest mean teacher accuracy.

    On a tie, the first in the configured order.
    """
    table = table.copy()
    within = table.within_stated_budget.astype(bool)
    if not within.any():
        raise ValueError("no configuration of the ablation is within the stated budget")
    table["best"] = False
    table.loc[table.accuracy_mean.where(within).idxmax(), "best"] = True
    return table


def ablation_table(
    files: dict | None, settings: dict, cached: dict | None, seed: int, status: str = "", threads: int = 1
):
    """Run the ablation.

    Parameters
    ----------
    files : dict or None
        None (dataset unavailable): one row per configuration whose ``data_status`` is ``status``.
    cached : dict or None
        The pipeline's ``{"private": arrays, "nonprivate": arrays}`` of the dataset (the stated
        configuration is checked against the private votes; GNMax needs the non-private ones).

    Returns
    -------
    table : pandas.DataFrame
        One row per configuration (columns :data:`ABLATION_COLUMNS`).
    per_teacher : pandas.DataFrame
        One row per configuration and trained teacher (empty when ``files`` is None).
    votes : dict
        ``{config: (n, n_test) votes, "labels", "test_index"}`` (empty when ``files`` is None).
    """
    ablation = settings["ablation"]
    K, n, m = settings["teachers"], ablation["teachers"], ablation["m"]
    if n > K:
        raise ValueError(f"the ablation trains {n} teachers, more than the K = {K} of the ensemble")
    if files is None:
        rows = [
            {"config": config["name"], "budget": config["budget"], DATA_STATUS_COLUMN: status}
            for config in ablation["configs"]
        ]
        table = pd.DataFrame(rows).reindex(columns=ABLATION_COLUMNS)
        return table.assign(best=False), pd.DataFrame(), {}
    summaries, per_teacher, votes = [], [], {}
    for config in ablation["configs"]:
        start = time.perf_counter()
        plan, config_votes, (truth, test_index), rows = train_configuration(
            files, settings, config, range(n), seed, threads
        )
        log.info("%s: %d teachers in %.1fs", plan.config, n, time.perf_counter() - start)
        if not np.array_equal(test_index, cached["private"]["test_index"]):
            raise ValueError("the ablation's test pool differs from the cached votes'")
        row = {**summary_row(plan, rows), "m": m}
        if plan.config == STATED and config["epochs"] is None:
            row["votes_as_pipeline"] = float(np.mean(config_votes == cached["private"]["votes"][:n]))
        if n == K:
            row |= aggregator_expectations(config_votes, cached["nonprivate"]["votes"], truth, settings, m)
            row["opt_minus_gnmax_expected"] = row["opt_expected"] - row["gnmax_expected"]
        summaries.append(row)
        per_teacher += [
            {**r, **{k: row[k] for k in ("sigma", "steps", "epochs", "epsilon_stated_delta")}} for r in rows
        ]
        votes[plan.config] = config_votes
    votes |= {"labels": truth, "test_index": test_index}
    table = mark_best(pd.DataFrame(summaries).reindex(columns=ABLATION_COLUMNS))
    return table, pd.DataFrame(per_teacher), votes


def best_configuration_votes(
    files: dict, settings: dict, table: pd.DataFrame, votes: dict, seed: int, threads: int = 1
):
    """Complete the ``best`` configuration to its K private teachers.

    The ablation's ``n`` teachers, and teachers ``n..K−1`` trained now with the same plan and seeds.

    Returns
    -------
    tuple
        ``(config name, arrays as from teacher_votes, per-teacher rows of the teachers trained now)``.
    """
    name = table.loc[table.best.astype(bool), "config"].item()
    config = next(c for c in settings["ablation"]["configs"] if c["name"] == name)
    trained = votes[name]
    rows = []
    if len(trained) < settings["teachers"]:
        _, more, _, rows = train_configuration(
            files, settings, config, range(len(trained), settings["teachers"]), seed, threads
        )
        trained = np.concatenate([trained, more])
    return name, {"votes": trained, "labels": votes["labels"], "test_index": votes["test_index"]}, rows


def best_configuration_accuracy(
    files: dict | None, settings: dict, table: pd.DataFrame, votes: dict, cached: dict | None, statuses: dict, seed: int
):
    """Return the accuracy table of the ablation's dataset with the private teachers of its ``best`` configuration.

    The table of :func:`~dpreplication.replications.darrm_prediction.accuracy_table`, with the
    same query draws and the same non-private teachers as the pipeline's table; first columns: the
    configuration and its K teachers' mean accuracy and number collapsed.

    Returns
    -------
    tuple
        ``(table, per-teacher rows of the teachers trained now)``.
    """
    dataset = settings["ablation"]["dataset"]
    one_dataset = {**settings, "datasets": {dataset: settings["datasets"][dataset]}}
    name, mean_accuracy, collapsed, rows, votes_by_dataset = "", np.nan, np.nan, [], {}
    if files is not None:
        name, private, rows = best_configuration_votes(files, settings, table, votes, seed)
        diagnostics = pd.DataFrame(
            [quality.vote_diagnostics(vote, private["labels"], settings["classes"]) for vote in private["votes"]]
        )
        mean_accuracy, collapsed = diagnostics.accuracy.mean(), int(diagnostics.collapsed.sum())
        votes_by_dataset = {dataset: {"private": private, "nonprivate": cached["nonprivate"]}}
    accuracy = prediction.accuracy_table(votes_by_dataset, statuses, one_dataset, seed, settings["solver"])
    accuracy.insert(1, "config", name)
    accuracy.insert(2, "teachers_accuracy_mean", mean_accuracy)
    accuracy.insert(3, "collapsed_teachers", collapsed)
    return accuracy, rows
