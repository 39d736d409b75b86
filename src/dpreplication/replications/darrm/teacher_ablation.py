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

The two-class test pool is split once, by a seeded draw (:func:`validation_mask`), into a
validation part and a query part. ``best`` marks the configuration within the stated budget whose
teachers are the most accurate on the validation part (mean over seeds and teachers); everything
the choice is then judged by — the teachers' accuracy, the exact expected accuracies of GNMax,
DaRRM_Sub and DaRRM_opt at the stated per-query budget ``(mε_teacher, mΔ)``, and the accuracy
table of the best configuration (:func:`best_configuration_accuracy`) — is computed on the query
part only, with its spread over the seeds. A row also reports the teachers' collapse
(:func:`~dpreplication.replications.darrm.teacher_quality.vote_diagnostics`) and ε of the
budget's accountant and of ours at the stated Δ.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.accounting import rdp
from dpreplication.accounting.ledger import LEDGER_COLUMNS, ledger_table, spending
from dpreplication.learning.protocol import mean_confidence_interval
from dpreplication.replications.darrm import prediction, teachers
from dpreplication.replications.darrm import teacher_quality as quality
from dpreplication.tables import DATA_STATUS_COLUMN

log = logging.getLogger(__name__)

PAPER = "darrm"
STATED = "stated"
ABLATION_SETTINGS = ("mean_probability", "gnmax_max_order", "solver")
"""Keys of the private-prediction section the ablation reads besides the private teachers' own."""


def ablation_settings(section: dict, ablation: dict, solver: str) -> dict:
    """Return the settings the ablation depends on.

    The private teachers' settings of its dataset
    (:func:`~dpreplication.replications.darrm.teachers.teacher_settings`), γ_opt's and GNMax's
    parameters, and the ablation section itself (so that e.g. the query counts do not rerun it).
    """
    chosen = teachers.teacher_settings(section, ablation["dataset"], "private")
    return {**chosen, **{key: section[key] for key in ABLATION_SETTINGS[:-1]}, "solver": solver, "ablation": ablation}


CONFIGURATION_KEYS = ("dataset", "teachers", "seeds", "budgets")
"""Keys of the ablation section one configuration's training depends on (besides the configuration)."""


def configuration_settings(settings: dict, name: str) -> dict:
    """Return the settings of :func:`ablation_settings` that training configuration ``name`` depends on.

    The private teachers' settings, and of the ablation section only :data:`CONFIGURATION_KEYS` and
    this configuration: adding a configuration, or changing m or the validation split, retrains none.
    """
    ablation = settings["ablation"]
    config = [c for c in ablation["configs"] if c["name"] == name]
    if len(config) != 1:
        raise ValueError(f"the teacher ablation has no single configuration named {name!r}")
    chosen = {key: value for key, value in settings.items() if key not in (*ABLATION_SETTINGS, "ablation")}
    return {**chosen, "ablation": {**{key: ablation[key] for key in CONFIGURATION_KEYS}, "configs": config}}


def validation_mask(size: int, share: float, seed: int, dataset: str) -> np.ndarray:
    """``(size,)`` booleans: True for the pool images that choose the configuration, False for the query part.

    A seeded uniform draw of ``round(share·size)`` images, fixed by the config seed and the
    dataset, so every configuration and seed is chosen and judged on the same two parts.
    """
    if not 0 < share < 1:
        raise ValueError(f"the validation share must lie in (0, 1), got {share}")
    mask = np.zeros(size, dtype=bool)
    mask[seeding.generator(seed, PAPER, "validation", dataset).permutation(size)[: int(round(share * size))]] = True
    return mask


def restrict(arrays: dict, keep: np.ndarray) -> dict:
    """Votes ``(…, n_test)``, labels and test indices of a pool restricted to the images ``keep``."""
    return {
        "votes": arrays["votes"][..., keep],
        "labels": arrays["labels"][keep],
        "test_index": arrays["test_index"][keep],
    }


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

    ``trained`` as in :func:`ablation_table`. The plan's ε is computed at the largest sampling rate
    of the shards, a bound on each teacher's (``promise="at most"``, :data:`LARGEST_RATE`).
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


def aggregator_expectations(private_votes, nonprivate_votes, truth, settings: dict, m: int) -> dict:
    """Exact expected accuracy over the pool of GNMax, DaRRM_Sub and DaRRM_opt.

    At the stated per-query budget ``(mε_teacher, mΔ)``
    (:func:`~dpreplication.replications.darrm.prediction.expected_accuracies`).
    """
    dataset = settings["ablation"]["dataset"]
    epsilon, delta = prediction.query_budget(settings, dataset, m)
    sigma = rdp.gnmax_noise_scale(epsilon, delta, settings["gnmax_max_order"]).sigma
    gamma = prediction.gamma_opt(settings, dataset, m, settings["solver"])
    exact = prediction.expected_accuracies(private_votes, nonprivate_votes, truth, settings["classes"], m, sigma, gamma)
    return {f"{method}_expected": float(values.mean()) for method, values in exact.items()}


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
ABLATION_COLUMNS = [
    *PLAN_COLUMNS,
    "teachers",
    "seeds",
    "validation_images",
    "query_images",
    "validation_accuracy_mean",
    "validation_accuracy_seed_sd",
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
    "opt_minus_gnmax_expected_seed_sd",
    "best",
    DATA_STATUS_COLUMN,
]


def seed_sd(values) -> float:
    """Sample standard deviation over seeds; NaN for a single seed."""
    return mean_confidence_interval(values)["std"]


def summary_row(config: dict, arrays: dict, rows: pd.DataFrame, mask: np.ndarray, cached: dict, settings: dict) -> dict:
    """Return the table row of ``config`` from its votes (all seeds) and per-teacher rows.

    Accuracies: validation part (the choice) and query part (the report); collapse: over the whole
    pool, summed over seeds. With all K teachers, the expected accuracies on the query part, mean
    over seeds, and the seed spread of DaRRM_opt − GNMax.
    """
    votes, labels = arrays["votes"], arrays["labels"]
    validation = (votes[..., mask] == labels[mask]).mean(axis=-1)
    queries = (votes[..., ~mask] == labels[~mask]).mean(axis=-1)
    first = rows.iloc[0]
    row = {
        **{column: first[column] for column in PLAN_COLUMNS},
        "teachers": votes.shape[1],
        "seeds": votes.shape[0],
        "validation_images": int(mask.sum()),
        "query_images": int((~mask).sum()),
        "validation_accuracy_mean": validation.mean(),
        "validation_accuracy_seed_sd": seed_sd(validation.mean(axis=1)),
        "accuracy_mean": queries.mean(),
        "accuracy_min": queries.min(),
        "accuracy_max": queries.max(),
        "rate_positive_class_mean": rows.rate_positive_class.mean(),
        "collapsed_teachers": int(rows.collapsed.sum()),
        "m": settings["ablation"]["m"],
        DATA_STATUS_COLUMN: "",
    }
    n = votes.shape[1]
    if config["name"] == STATED and config["epochs"] is None:
        row["votes_as_pipeline"] = float(np.mean(votes[0] == cached["private"]["votes"][:n]))
    if n == settings["teachers"]:
        query_nonprivate = restrict(cached["nonprivate"], ~mask)
        per_seed = pd.DataFrame(
            [
                aggregator_expectations(
                    seed_votes[:, ~mask], query_nonprivate["votes"], labels[~mask], settings, settings["ablation"]["m"]
                )
                for seed_votes in votes
            ]
        )
        row |= per_seed.mean().to_dict()
        gap = per_seed.opt_expected - per_seed.gnmax_expected
        row["opt_minus_gnmax_expected"], row["opt_minus_gnmax_expected_seed_sd"] = gap.mean(), seed_sd(gap)
    return row


def mark_best(table: pd.DataFrame) -> pd.DataFrame:
    """Mark as ``best`` the configuration within the stated budget most accurate on the validation part.

    On a tie, the first in the configured order.
    """
    table = table.copy()
    within = table.within_stated_budget.astype(bool)
    if not within.any():
        raise ValueError("no configuration of the ablation is within the stated budget")
    table["best"] = False
    table.loc[table.validation_accuracy_mean.where(within).idxmax(), "best"] = True
    return table


def ablation_table(trained: dict | None, settings: dict, cached: dict | None, seed: int, status: str = ""):
    """Return the ablation's table from every configuration's trained teachers.

    Parameters
    ----------
    trained : dict or None
        ``{config: (arrays, rows)}`` as from :func:`configuration_votes` (rows as a DataFrame), in the
        configured order; None (dataset unavailable): one row per configuration whose
        ``data_status`` is ``status``.
    cached : dict or None
        The pipeline's ``{"private": arrays, "nonprivate": arrays}`` of the dataset (the stated
        configuration is checked against the private votes; GNMax needs the non-private ones).

    Returns
    -------
    pandas.DataFrame
        One row per configuration (columns :data:`ABLATION_COLUMNS`).
    """
    ablation = settings["ablation"]
    if trained is None:
        rows = [
            {"config": config["name"], "budget": config["budget"], DATA_STATUS_COLUMN: status}
            for config in ablation["configs"]
        ]
        return pd.DataFrame(rows).reindex(columns=ABLATION_COLUMNS).assign(best=False)
    summaries, mask = [], None
    for config in ablation["configs"]:
        arrays, rows = trained[config["name"]]
        if not np.array_equal(arrays["test_index"], cached["private"]["test_index"]):
            raise ValueError(f"{config['name']}: the ablation's test pool differs from the cached votes'")
        if mask is None:
            mask = validation_mask(arrays["labels"].size, ablation["validation_share"], seed, ablation["dataset"])
        summaries.append(summary_row(config, arrays, rows, mask, cached, settings))
    return mark_best(pd.DataFrame(summaries).reindex(columns=ABLATION_COLUMNS))


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


def seed_mean_table(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Average accuracy tables of the seed replicates, row by row; each gap's 95 % interval over the seeds.

    The gap of a replicate is its mean over the query draws; the interval is Student-t over the
    ``S`` replicates (NaN for one), which holds both the teachers' and the draws' randomness.
    """
    first = tables[0]
    stacked = pd.concat(tables, keys=range(len(tables)), names=["replicate", "row"])
    numeric = first.select_dtypes("number").columns
    mean = stacked[numeric].groupby(level="row").mean()
    table = first.copy()
    table[numeric] = mean[numeric]
    for better, worse in prediction.GAPS:
        gap = f"{better}_minus_{worse}"
        for row in range(len(first)):
            interval = mean_confidence_interval([t[gap].iloc[row] for t in tables])
            table.loc[table.index[row], [f"{gap}_ci_low", f"{gap}_ci_high"]] = interval["ci_low"], interval["ci_high"]
    table.insert(table.columns.get_loc("draws"), "runs", len(tables))
    return table


def best_configuration_accuracy(
    files: dict | None,
    settings: dict,
    table: pd.DataFrame,
    arrays: dict,
    cached: dict | None,
    statuses: dict,
    seed: int,
):
    """Return the accuracy table of the ablation's dataset with the private teachers of its ``best`` configuration.

    The table of :func:`~dpreplication.replications.darrm.prediction.accuracy_table` on the query
    part of the pool (never the validation part that chose the configuration), with the pipeline's
    non-private teachers, for each seed replicate, averaged by :func:`seed_mean_table` (``runs``:
    the seeds). First columns: the configuration and its teachers' mean accuracy on the query part
    and number collapsed (over all seeds).

    Returns
    -------
    tuple
        ``(table, per-teacher rows of the teachers trained now, the query sets' ledgers with their
        replicate)``.
    """
    dataset = settings["ablation"]["dataset"]
    one_dataset = {**settings, "datasets": {dataset: settings["datasets"][dataset]}}
    name, mean_accuracy, collapsed, rows, replicates = "", np.nan, np.nan, [], [{}]
    if files is not None:
        name = table.loc[table.best.astype(bool), "config"].item()
        private, rows = best_configuration_votes(files, settings, name, arrays, seed)
        mask = validation_mask(private["labels"].size, settings["ablation"]["validation_share"], seed, dataset)
        query, nonprivate = restrict(private, ~mask), restrict(cached["nonprivate"], ~mask)
        mean_accuracy = float(np.mean(query["votes"] == query["labels"]))
        collapsed = int(
            sum(
                quality.vote_diagnostics(teacher, private["labels"], settings["classes"])["collapsed"]
                for seed_votes in private["votes"]
                for teacher in seed_votes
            )
        )
        replicates = [
            {dataset: {"private": {**query, "votes": seed_votes}, "nonprivate": nonprivate}}
            for seed_votes in query["votes"]
        ]
    tables, releases = zip(
        *(prediction.accuracy_table(votes, statuses, one_dataset, seed, settings["solver"]) for votes in replicates)
    )
    accuracy = seed_mean_table(list(tables))
    accuracy.insert(1, "config", name)
    accuracy.insert(2, "teachers_accuracy_mean", mean_accuracy)
    accuracy.insert(3, "collapsed_teachers", collapsed)
    spent = pd.concat([part.assign(replicate=replicate) for replicate, part in enumerate(releases)], ignore_index=True)
    return accuracy, rows, spent
