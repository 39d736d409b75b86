"""DaRRM private prediction: ablations of DP-SGD within the paper's protocol (issue "DaRRM on MNIST").

Are the private MNIST teachers weak because of the training configuration? Each configuration
fixes the epochs, the optimiser and its learning rate, and a privacy budget:

* ``stated``: the teachers' stated ``(ε_teacher, Δ)`` under our RDP accountant. With ``epochs``
  null it is the pipeline's protocol itself (σ of the config, the most steps within ε); with a
  number of epochs ``E`` the steps are ``E⌈n/B⌉`` and σ is recalibrated to the same ε
  (:func:`~dpreplication.accounting.rdp.calibrate_noise_multiplier`);
* a named budget of ``budgets`` (the authors' earlier ICLR run: ε = 0.1075 at δ = 1e-3, 10
  epochs), σ from Opacus' ``get_noise_multiplier`` with that budget's accountant (PRV).

Every configuration trains teachers ``0..n−1`` on the same shards, once per seed replicate
``0..S−1`` with the pipeline's seeds (:func:`~dpreplication.replications.darrm.teachers.teacher_seed`;
common random numbers: the configurations differ only in what they change), so the ``stated``
configuration's replicate 0 reproduces the cached votes of the pipeline (checked, on CPU).

Which configuration is best, and how it is judged: :mod:`.teacher_ablation_choice`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from dpreplication.accounting import rdp
from dpreplication.accounting.ledger import LEDGER_COLUMNS, ledger_table, spending
from dpreplication.replications.darrm import teacher_quality as quality
from dpreplication.replications.darrm import teachers
from dpreplication.replications.darrm.rule_settings import ablation_settings, configuration_settings  # noqa: F401

log = logging.getLogger(__name__)

PAPER = "darrm"
STATED = "stated"


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


def train_configuration(
    files: dict, settings: dict, config: dict, indices, seed: int, threads: int = 1, replicate: int = 0
):
    """Train the private teachers ``indices`` of the ablation's dataset under ``config``, seed ``replicate``.

    Returns
    -------
    plan : TrainingPlan
        The resolved plan.
    votes : numpy.ndarray
        The votes, ``(len(indices), n_test)``.
    pool : tuple
        The test pool ``(labels, test_index)``.
    rows : list of dict
        One dict per teacher: its diagnostics on the whole pool, training seconds and privacy ledger
        (budgeted at the plan's ε at the stated Δ).
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
        with spending(plan.epsilon_stated_delta, settings["Delta"]) as ledger:  # one release of its shard
            model, record = learning.train_private(
                x_train[start:stop],
                y_train[start:stop],
                plan.steps,
                plan.noise_multiplier,
                settings["max_grad_norm"],
                plan.learning_rate,
                batch,
                teachers.teacher_seed(seed, dataset, "private", teacher, replicate),
                device,
                optimiser=plan.optimiser,
            )
        if record.noise_multiplier != plan.noise_multiplier or record.steps != plan.steps:
            raise RuntimeError(f"{plan.config} teacher {teacher}: Opacus trained with {record}, not {plan}")
        votes.append(learning.predict(model, x_test, device))
        diagnostics = quality.vote_diagnostics(votes[-1], y_test, settings["classes"])
        rows.append(
            {
                "config": plan.config,
                "replicate": replicate,
                "teacher": teacher,
                **diagnostics,
                "seconds": record.seconds,
                **ledger.summary(),
            }
        )
        log.info(
            "%s replicate %d teacher %d: %d steps (σ = %.4f, %s, lr %g) in %.1fs, test accuracy %.4f",
            plan.config,
            replicate,
            teacher,
            plan.steps,
            plan.noise_multiplier,
            plan.optimiser,
            plan.learning_rate,
            record.seconds,
            diagnostics["accuracy"],
        )
    return plan, np.stack(votes), (y_test, test_index), rows


def configuration_votes(files: dict, settings: dict, config: dict, seed: int, threads: int = 1):
    """Train the ablation's ``n`` teachers under ``config`` once per seed replicate ``0..S−1``.

    Returns
    -------
    tuple
        ``(plan, arrays, rows)``: the plan, ``{"votes": (S, n, n_test), "labels", "test_index"}``
        and the per-teacher rows of every replicate, each with the plan's fields.
    """
    ablation = settings["ablation"]
    if ablation["teachers"] > settings["teachers"]:
        raise ValueError(
            f"the ablation trains {ablation['teachers']} teachers, more than the K = {settings['teachers']} of the ensemble"
        )
    votes, rows = [], []
    for replicate in range(ablation["seeds"]):
        start = time.perf_counter()
        plan, replicate_votes, (labels, test_index), replicate_rows = train_configuration(
            files, settings, config, range(ablation["teachers"]), seed, threads, replicate
        )
        log.info(
            "%s replicate %d: %d teachers in %.1fs",
            plan.config,
            replicate,
            len(replicate_rows),
            time.perf_counter() - start,
        )
        votes.append(replicate_votes)
        rows += replicate_rows
    fields = plan_fields(plan)
    return (
        plan,
        {"votes": np.stack(votes), "labels": labels, "test_index": test_index},
        [{**fields, **row} for row in rows],
    )


LARGEST_RATE = (
    "stated: the plan's RDP ε at the stated Δ for the largest sampling rate of the shards; a teacher on a "
    "larger shard samples at a lower rate and spends less"
)
"""Why a configuration's stated ε bounds what each of its teachers spends (the ledger's named slack)."""


def ablation_ledger(trained: dict | None) -> pd.DataFrame:
    """Per configuration: its teachers' ledgers (DP-SGD by RDP at Δ) against the plan's ε at the stated Δ.

    ``trained`` as in :func:`~dpreplication.replications.darrm.teacher_ablation_choice.ablation_table`.
    The plan's ε is computed at the largest sampling rate of the shards, a bound on each teacher's
    (``promise="at most"``, :data:`LARGEST_RATE`).
    """
    columns = ["config", "replicate", "teacher", "epsilon_stated_delta", *LEDGER_COLUMNS]
    frames = [rows.reindex(columns=columns) for _, rows in (trained or {}).values()]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    table = ledger_table(
        rows, ["config"], stated="epsilon_stated_delta", release=("replicate", "teacher"), promise="at most"
    )
    return table.assign(conservative=LARGEST_RATE)


def plan_fields(plan: TrainingPlan) -> dict:
    """Return the plan as table columns (:data:`PLAN_COLUMNS`)."""
    resolved = asdict(plan)
    return {
        **{key: resolved[key] for key in ("config", "budget", "epochs", "steps", "epsilon", "delta", "accountant")},
        "optimizer": plan.optimiser,
        "learning_rate": plan.learning_rate,
        "sigma": plan.noise_multiplier,
        "epsilon_stated_delta": plan.epsilon_stated_delta,
        "within_stated_budget": plan.within_stated_budget,
    }


PLAN_COLUMNS = [
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
]
"""The columns of :func:`plan_fields`, first in the table."""


def best_configuration_votes(files: dict, settings: dict, name: str, arrays: dict, seed: int, threads: int = 1):
    """Complete every seed replicate of configuration ``name`` to its K private teachers.

    The ablation's ``n`` teachers of each replicate, and teachers ``n..K−1`` trained now with the
    same plan and the replicate's seeds.

    Returns
    -------
    tuple
        ``(arrays with votes (S, K, n_test), per-teacher rows of the teachers trained now)``.
    """
    config = next(c for c in settings["ablation"]["configs"] if c["name"] == name)
    votes, rows, K = arrays["votes"], [], settings["teachers"]
    if votes.shape[1] < K:
        completed = []
        for replicate, trained in enumerate(votes):
            _, more, _, more_rows = train_configuration(
                files, settings, config, range(trained.shape[0], K), seed, threads, replicate
            )
            completed.append(np.concatenate([trained, more]))
            rows += more_rows
        votes = np.stack(completed)
    return {**arrays, "votes": votes}, rows
