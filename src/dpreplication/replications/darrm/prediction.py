"""DaRRM private prediction (Jiang, Zhang & Joshi, TMLR 2024, §6.2; spec §3).

Queries are labelled by the private majority of K teachers trained on disjoint shards. The
teachers and their cached vote matrices come from
:func:`dpreplication.replications.darrm.teachers.teacher_votes`. One function per table, each a
tidy DataFrame:

* :func:`privacy_table` — per-query and total privacy of the three aggregators: GNMax's σ from
  the data-independent RDP bound, γ_opt of the DaRRM LP and its exact privacy check, and the
  advanced composition over Q queries (analytic, needs no data);
* :func:`accuracy_table` — accuracy of Q random queries (mean and population std over the
  draws) for GNMax (non-private teachers + Gaussian noise), DaRRM_Sub (majority of m random
  private teachers) and DaRRM_opt, each next to its exact expectation over the query pool; and
  the privacy ledger of every query set it released (:func:`query_ledger_table`);
* :func:`seed_spread_table` — each aggregator's exact expected accuracy under independently
  seeded teacher ensembles (replicates), and its spread over the seeds.

The teachers' own quality (accuracies, collapse) is tabulated in
:mod:`dpreplication.replications.darrm.teacher_quality`.

Labels. The two classes (5 and 8) are class 0 and class 1. DaRRM and subsampling binarise a vote
as "not class 0" (the authors' mapping; votes outside the two classes are rare); GNMax counts
the votes of each class and ignores the others. All three aggregators have the same per-query
budget ``(mε, mΔ)`` with ε the stated per-teacher ε; every private teacher's accountant ε is at
most that (checked), so the guarantee holds as stated.

A dataset that cannot be had yields rows whose ``data_status`` starts with "needs download"
and whose numbers are NaN: the scorecard reports those claims as needing the download.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from dpreplication import seeding
from dpreplication.accounting import rdp
from dpreplication.accounting.composition import advanced_composition
from dpreplication.accounting.ledger import LEDGER_COLUMNS, ledger_table, spending
from dpreplication.accounting.privacy_verifier import verify_privacy
from dpreplication.learning.protocol import mean_confidence_interval
from dpreplication.mechanisms import gnmax
from dpreplication.mechanisms import majority as mj
from dpreplication.optimisation.gamma_lp import optimise_gamma_cached
from dpreplication.tables import DATA_STATUS_COLUMN, NEEDS_DOWNLOAD

PAPER = "darrm"
METHODS = ("gnmax", "sub", "opt")
GAPS = (("sub", "gnmax"), ("opt", "sub"), ("opt", "gnmax"))
"""The pairwise accuracy gaps ``<better>_minus_<worse>`` the table reports."""
CONSERVATIVE = {
    "gnmax": "σ calibrated by the classic conversion λ/σ² + log(1/δ)/(λ − 1) on the authors' orders (spec §3); "
    "spent: dp-accounting's RDP accountant on the Gaussian of L2 sensitivity √2, a tighter conversion",
    "sub": "stated: composition of the m polled teachers (Lemma 3.1); spent: the exact verifier on γ_Sub",
    "opt": "stated: the LP's constraint at (mε, mΔ); spent: the exact verifier on γ_opt, below mε where γ_opt "
    "reaches its bounds [0, 1]",
}
"""Why each aggregator's stated per-query ε is a bound on what it spends (the ledger's named slack)."""


def needs_download(dataset: str, status: dict) -> str:
    """Return the ``data_status`` text of rows that could not be computed because ``dataset`` is missing."""
    missing = "; ".join(f"{name}: {reason}" for name, reason in status.get("missing", {}).items())
    return (
        f"{NEEDS_DOWNLOAD}: {dataset} is not available ({missing}); download it or place it under the "
        f"data directory or the mirror (README, Data)"
    )


# --------------------------------------------------------------------------- per-query privacy


def query_budget(settings: dict, dataset: str, m: int) -> tuple[float, float]:
    """``(mε, mΔ)``: the per-query budget shared by the three aggregators (spec §3)."""
    return m * settings["datasets"][dataset]["epsilon_teacher"], m * settings["Delta"]


def gamma_opt(settings: dict, dataset: str, m: int, solver: str) -> np.ndarray:
    """γ_opt of the DaRRM LP for ``K`` ``(ε_teacher, Δ)``-DP teachers at ``(mε, mΔ)`` (prior T_U)."""
    epsilon = settings["datasets"][dataset]["epsilon_teacher"]
    return np.array(
        optimise_gamma_cached(
            settings["teachers"],
            m,
            epsilon,
            settings["Delta"],
            m * settings["Delta"],
            settings["mean_probability"],
            solver,
        ).gamma
    )


def privacy_table(settings: dict, solver: str) -> pd.DataFrame:
    """Per (dataset, m, Q): the per-query privacy of the three aggregators and the total over Q queries.

    Columns: the per-query budget, GNMax's σ and RDP order λ*, GNMax's accuracy on a unanimous
    correct K–0 vote ``Φ(K/(√2σ))``, γ_opt's exact privacy violation (≤ 0: private) and distance
    from the plain majority, and the total ``(ε, δ)`` over Q queries (advanced composition).
    """
    rows = []
    K = settings["teachers"]
    for dataset in settings["datasets"]:
        for m in settings["ms"]:
            epsilon, delta = query_budget(settings, dataset, m)
            calibration = rdp.gnmax_noise_scale(epsilon, delta, settings["gnmax_max_order"])
            gamma = gamma_opt(settings, dataset, m, solver)
            teacher_epsilon = settings["datasets"][dataset]["epsilon_teacher"]
            report = verify_privacy(gamma, K, m, teacher_epsilon, settings["Delta"], delta)
            for queries in settings["queries"]:
                total_epsilon, total_delta = advanced_composition(epsilon, delta, queries, settings["delta_prime"])
                rows.append(
                    {
                        "dataset": dataset,
                        "m": m,
                        "queries": queries,
                        "teachers": K,
                        "epsilon_teacher": teacher_epsilon,
                        "Delta": settings["Delta"],
                        "epsilon_query": epsilon,
                        "delta_query": delta,
                        "gnmax_sigma": calibration.sigma,
                        "gnmax_order": calibration.order,
                        "gnmax_min_order": calibration.min_order,
                        "gnmax_epsilon": rdp.gnmax_epsilon(calibration.sigma, delta, calibration.order),
                        "gnmax_unanimous_accuracy": float(special.ndtr(K / (np.sqrt(2.0) * calibration.sigma))),
                        "gamma_opt": " ".join(f"{g:.4f}" for g in mj.gamma_upper_half(gamma)),
                        "gamma_opt_violation": report.violation,
                        "gamma_opt_minus_majority": float(np.abs(gamma - 1).max()),
                        "epsilon_total": total_epsilon,
                        "delta_total": total_delta,
                    }
                )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- accuracy of Q queries


def binary_votes(votes: np.ndarray, classes) -> np.ndarray:
    """``(n, K)`` 0/1 votes: 1 unless the teacher voted class 0 (the authors' mapping)."""
    return (np.asarray(votes).T != classes[0]).astype(np.int64)


def class_counts(votes: np.ndarray, classes) -> np.ndarray:
    """``(n, 2)`` numbers of teachers voting class 0 and class 1 on each image."""
    votes = np.asarray(votes)
    return np.stack([(votes == c).sum(axis=0) for c in classes], axis=1)


def expected_accuracies(private_votes, nonprivate_votes, truth, classes, m: int, sigma: float, gamma) -> dict:
    """Exact probability that each aggregator labels each pool image correctly, ``(n,)`` per method.

    GNMax: ``Φ((n_true − n_other)/(√2σ))``; Sub: ``h_m(L)`` (Lemma 3.1); opt: ``½ + ½ s_L γ(L)``
    for the right sign; ``L`` = number of private votes for class 1.
    """
    ones = binary_votes(private_votes, classes).sum(axis=1)
    is_one = truth == classes[1]
    K = private_votes.shape[0]
    gnmax_first = gnmax.gnmax_probability_first(class_counts(nonprivate_votes, classes), sigma)
    sub_one = mj.subsample_majority_probability(K, m)[ones]
    opt_one = mj.darrm_probability_one(gamma, np.eye(K + 1)[ones])
    return {
        method: np.where(is_one, p_one, 1.0 - p_one)
        for method, p_one in (("gnmax", 1.0 - gnmax_first), ("sub", sub_one), ("opt", opt_one))
    }


def query_set_spending(voter_epsilon: float, voter_delta: float, m: int, queries: int, delta_prime: float):
    """Open the ledger of one set of Q query labels, capped at its stated total (spec §3).

    Each label is read at the per-query δ = mΔ; the Q labels compose by advanced composition with
    δ'; the cap is the advanced composition of the stated per-query ``(mε, mΔ)``.
    """
    epsilon, delta = m * voter_epsilon, m * voter_delta
    total_epsilon, total_delta = advanced_composition(epsilon, delta, queries, delta_prime)
    return spending(total_epsilon, total_delta, release_delta=delta, delta_prime=delta_prime)


def aggregate(method: str, binary, counts, m: int, sigma: float, gamma, rng, voter_epsilon: float, voter_delta: float):
    """Release the class index (0 or 1) of each query by aggregator ``method``."""
    if method == "gnmax":
        return gnmax.gnmax_aggregate(counts, sigma, rng)
    if method == "sub":
        return mj.subsample_majority(binary, m, rng, voter_epsilon=voter_epsilon, voter_delta=voter_delta)
    return mj.sample_darrm(binary, gamma, rng, voter_epsilon=voter_epsilon, voter_delta=voter_delta)


QUERY_RELEASE_COLUMNS = ["draw", "method", *LEDGER_COLUMNS, "spent_epsilon_query"]
"""The ledger of each query set :func:`simulate_queries` releases."""


def simulate_queries(
    private_votes,
    nonprivate_votes,
    truth,
    classes,
    m: int,
    queries: int,
    draws: int,
    sigma: float,
    gamma,
    seed: int,
    dataset: str,
    *,
    voter_epsilon: float,
    voter_delta: float,
    delta_prime: float,
) -> tuple[dict, pd.DataFrame]:
    """Count each aggregator's correct labels on ``draws`` random sets of ``queries`` pool images.

    The images of a set are drawn without replacement; the sets are the same for every method and
    budget m. Each set's labels are released in their own ledger (:func:`query_set_spending`, the
    private teachers ``(voter_epsilon, voter_delta)``-DP).

    Returns
    -------
    dict
        ``(draws,)`` ints per method.
    pandas.DataFrame
        :data:`QUERY_RELEASE_COLUMNS`, one row per (draw, method): the query set's ledger and the
        largest ε one of its labels spent.
    """
    binary = binary_votes(private_votes, classes)
    counts = class_counts(nonprivate_votes, classes)
    correct = {method: np.empty(draws, dtype=np.int64) for method in METHODS}
    releases = []
    for draw in range(draws):
        chosen = seeding.generator(seed, PAPER, "queries", dataset, queries, draw).choice(
            truth.size, size=queries, replace=False
        )
        for method in METHODS:
            rng = seeding.generator(seed, PAPER, "aggregate", dataset, m, queries, draw, method)
            with query_set_spending(voter_epsilon, voter_delta, m, queries, delta_prime) as ledger:
                released = aggregate(
                    method, binary[chosen], counts[chosen], m, sigma, gamma, rng, voter_epsilon, voter_delta
                )
            correct[method][draw] = np.sum(np.asarray(classes)[released] == truth[chosen])
            per_query = max(entry.epsilon for entry in ledger.entries)
            releases.append({"draw": draw, "method": method, **ledger.summary(), "spent_epsilon_query": per_query})
    return correct, pd.DataFrame(releases, columns=QUERY_RELEASE_COLUMNS)


def z_score(mean: float, expected: float, standard_error: float) -> float:
    """``(mean − expected)/SE``; with ``SE = 0`` it is 0 if they agree and ±∞ otherwise."""
    if standard_error > 0:
        return float((mean - expected) / standard_error)
    return 0.0 if np.isclose(mean, expected, rtol=0, atol=1e-12) else float(np.copysign(np.inf, mean - expected))


def accuracy_table(
    votes: dict, statuses: dict, settings: dict, seed: int, solver: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (dataset, m, Q): each aggregator's accuracy over the draws against its exact expectation.

    Mean and population std over the draws of each aggregator's accuracy (the paper's "mean
    (std)"), its exact expectation over the pool, the z-score of the mean against that
    expectation, the pairwise gaps (paired over the same query sets, with their Student-t 95 %
    intervals over the draws), and the per-query and total privacy. Second, the ledger of every
    query set released (:data:`QUERY_RELEASE_COLUMNS` with dataset, m, Q and the stated per-query
    and total ε), for :func:`query_ledger_table`.

    Parameters
    ----------
    votes : dict
        ``{dataset: {"private": arrays, "nonprivate": arrays}}`` (arrays as returned by
        :func:`~dpreplication.replications.darrm.teachers.teacher_votes`) for the available datasets.
    statuses : dict
        As in :func:`~dpreplication.replications.darrm.teacher_quality.teachers_table`.
    """
    classes = list(settings["classes"])
    draws = settings["draws"]
    privacy = privacy_table(settings, solver).set_index(["dataset", "m", "queries"])
    rows, releases = [], []
    for dataset in settings["datasets"]:
        for m in settings["ms"]:
            for queries in settings["queries"]:
                budget = privacy.loc[(dataset, m, queries)]
                row = {
                    "dataset": dataset,
                    "m": m,
                    "queries": queries,
                    "epsilon_query": budget.epsilon_query,
                    "delta_query": budget.delta_query,
                    "epsilon_total": budget.epsilon_total,
                    "delta_total": budget.delta_total,
                    "gnmax_sigma": budget.gnmax_sigma,
                    "draws": draws,
                }
                if dataset not in votes:
                    rows.append({**row, DATA_STATUS_COLUMN: needs_download(dataset, statuses[dataset])})
                    continue
                private, nonprivate = votes[dataset]["private"], votes[dataset]["nonprivate"]
                if not np.array_equal(private["test_index"], nonprivate["test_index"]):
                    raise ValueError(f"{dataset}: private and non-private votes cover different test images")
                truth = private["labels"]
                gamma = gamma_opt(settings, dataset, m, solver)
                exact = expected_accuracies(
                    private["votes"], nonprivate["votes"], truth, classes, m, budget.gnmax_sigma, gamma
                )
                correct, spent = simulate_queries(
                    private["votes"],
                    nonprivate["votes"],
                    truth,
                    classes,
                    m,
                    queries,
                    draws,
                    budget.gnmax_sigma,
                    gamma,
                    seed,
                    dataset,
                    voter_epsilon=settings["datasets"][dataset]["epsilon_teacher"],
                    voter_delta=settings["Delta"],
                    delta_prime=settings["delta_prime"],
                )
                stated = budget[["epsilon_query", "epsilon_total"]].to_dict()
                releases.append(spent.assign(dataset=dataset, m=m, queries=queries, **stated))
                total = {method: int(correct[method].sum()) for method in METHODS}
                answered = queries * draws  # means and gaps from the counts of correct labels: no round-off
                for method in METHODS:
                    mean, std = total[method] / answered, (correct[method] / queries).std()
                    expected = exact[method].mean()
                    row[f"{method}_mean"], row[f"{method}_std"], row[f"{method}_expected"] = mean, std, expected
                    row[f"{method}_z"] = z_score(mean, expected, std / np.sqrt(draws))
                for better, worse in GAPS:
                    gap = f"{better}_minus_{worse}"
                    paired = mean_confidence_interval((correct[better] - correct[worse]) / queries)
                    row[gap] = (total[better] - total[worse]) / answered
                    row[f"{gap}_ci_low"], row[f"{gap}_ci_high"] = paired["ci_low"], paired["ci_high"]
                row |= {"pool": truth.size, DATA_STATUS_COLUMN: ""}
                rows.append(row)
    columns = [
        "dataset",
        "m",
        "queries",
        "epsilon_query",
        "delta_query",
        "epsilon_total",
        "delta_total",
        "gnmax_sigma",
        *[f"{method}_{stat}" for method in METHODS for stat in ("mean", "std")],
        *[f"{method}_expected" for method in METHODS],
        *[f"{method}_z" for method in METHODS],
        *[f"{better}_minus_{worse}{part}" for better, worse in GAPS for part in ("", "_ci_low", "_ci_high")],
        "draws",
        "pool",
        DATA_STATUS_COLUMN,
    ]
    release_columns = ["dataset", "m", "queries", "epsilon_query", "epsilon_total", *QUERY_RELEASE_COLUMNS]
    spent = pd.concat(releases, ignore_index=True) if releases else pd.DataFrame()
    return pd.DataFrame(rows).reindex(columns=columns), spent.reindex(columns=release_columns)


def query_ledger_table(releases: pd.DataFrame, release=("draw",)) -> pd.DataFrame:
    """Per (dataset, m, Q, method): the query sets' ledgers against the stated total and per-query ε.

    The stated ε bounds what an aggregator spends (``promise="at most"`` of
    :func:`~dpreplication.accounting.ledger.ledger_table`): ``ledger_error`` is the overspending,
    ``spent_share`` the share of the stated total spent, and ``conservative`` names why the bound
    may be loose (:data:`CONSERVATIVE`).
    """
    keys = ["dataset", "m", "queries", "method"]
    table = ledger_table(releases, keys, stated="epsilon_total", release=release, promise="at most")
    per_query = releases.groupby(keys, sort=False).agg(
        stated_epsilon_query=("epsilon_query", "first"), spent_epsilon_query=("spent_epsilon_query", "max")
    )
    table = table.merge(per_query.reset_index(), on=keys, how="left")
    return table.assign(conservative=table["method"].map(CONSERVATIVE))


SEED_SPREAD_COLUMNS = [
    "dataset",
    "m",
    "replicate",
    "seeds",
    "gnmax_sigma",
    "private_accuracy_mean",
    *[f"{method}_expected" for method in METHODS],
    *[f"{method}_expected_seed_sd" for method in METHODS],
    DATA_STATUS_COLUMN,
]
ALL_REPLICATES = "all"
"""The ``replicate`` of the rows that summarise every replicate (mean and sample std over them)."""


def seed_spread_table(replicates: dict, statuses: dict, settings: dict, solver: str) -> pd.DataFrame:
    """Per (dataset, m): each aggregator's exact expected accuracy under each teacher replicate.

    A replicate is one pair of private and non-private ensembles trained on the same shards with
    independent seeds (:func:`~dpreplication.replications.darrm.teachers.teacher_seed`); replicate 0
    is the pipeline's. Rows ``replicate = r`` hold replicate r's expectations over the whole pool
    (:func:`expected_accuracies`); the row ``replicate = "all"`` their mean over the ``S`` seeds
    and, as ``<method>_expected_seed_sd``, their sample standard deviation (NaN for ``S = 1``): how
    far a number of the paper's, from one ensemble, may sit from ours by the teachers' draw alone.

    Parameters
    ----------
    replicates : dict
        ``{dataset: [{"private": arrays, "nonprivate": arrays}, ...]}`` by replicate, for the
        available datasets.
    statuses : dict
        As in :func:`accuracy_table`.
    """
    classes = list(settings["classes"])
    privacy = privacy_table(settings, solver).groupby(["dataset", "m"]).gnmax_sigma.first()
    rows = []
    for dataset in settings["datasets"]:
        for m in settings["ms"]:
            sigma = privacy.loc[(dataset, m)]
            base = {"dataset": dataset, "m": m, "gnmax_sigma": sigma}
            if dataset not in replicates:
                status = needs_download(dataset, statuses[dataset])
                rows.append({**base, "replicate": ALL_REPLICATES, DATA_STATUS_COLUMN: status})
                continue
            gamma = gamma_opt(settings, dataset, m, solver)
            per_seed = []
            for replicate, votes in enumerate(replicates[dataset]):
                private, nonprivate = votes["private"], votes["nonprivate"]
                if not np.array_equal(private["test_index"], nonprivate["test_index"]):
                    raise ValueError(f"{dataset} replicate {replicate}: the ensembles vote on different test images")
                truth = private["labels"]
                exact = expected_accuracies(private["votes"], nonprivate["votes"], truth, classes, m, sigma, gamma)
                per_seed.append(
                    {
                        **base,
                        "replicate": str(replicate),
                        "private_accuracy_mean": float(np.mean(private["votes"] == truth)),
                        **{f"{method}_expected": float(exact[method].mean()) for method in METHODS},
                        DATA_STATUS_COLUMN: "",
                    }
                )
            seeds = pd.DataFrame(per_seed)
            summary = {**base, "replicate": ALL_REPLICATES, "seeds": len(seeds)}
            for column in ["private_accuracy_mean", *[f"{method}_expected" for method in METHODS]]:
                summary[column] = seeds[column].mean()
            for method in METHODS:
                summary[f"{method}_expected_seed_sd"] = seeds[f"{method}_expected"].std(ddof=1)
            rows += [*per_seed, {**summary, DATA_STATUS_COLUMN: ""}]
    return pd.DataFrame(rows).reindex(columns=SEED_SPREAD_COLUMNS)


# --------------------------------------------------------------------------- cached teachers


def read_statuses(paths: Mapping[str, str | os.PathLike]) -> dict[str, dict]:
    """Read each dataset's availability status from ``{dataset: path}``.

    The files are JSON as written from :func:`dpreplication.data.fetch.availability`.
    """
    return {dataset: json.loads(Path(path).read_text()) for dataset, path in paths.items()}


def read_votes(paths: Mapping[str, Mapping[str, str | os.PathLike]]) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Read the cached votes ``{dataset: {kind: arrays}}`` from ``{dataset: {kind: .npz path}}``.

    The arrays are those of :func:`~dpreplication.replications.darrm.teachers.teacher_votes`.
    """
    votes: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for dataset, by_kind in paths.items():
        for kind, path in by_kind.items():
            with np.load(path) as cached:
                votes.setdefault(dataset, {})[kind] = dict(cached)
    return votes


def read_replicates(paths: Mapping[str, list]) -> dict[str, list[dict[str, dict[str, np.ndarray]]]]:
    """Read ``{dataset: [{kind: arrays}, ...]}`` from ``{dataset: [{kind: .npz path}, ...]}`` (by replicate)."""
    return {dataset: [read_votes({dataset: by_kind})[dataset] for by_kind in seeds] for dataset, seeds in paths.items()}


def read_teachers(paths: Mapping[str, Mapping[str, str | os.PathLike]]) -> dict[tuple[str, str], pd.DataFrame]:
    """Read the per-teacher tables ``{(dataset, kind): frame}`` from ``{dataset: {kind: CSV path}}``."""
    return {(dataset, kind): pd.read_csv(path) for dataset, by_kind in paths.items() for kind, path in by_kind.items()}


def gnmax_variance_table(privacy: pd.DataFrame, max_order: float) -> pd.DataFrame:
    """F10: GNMax's σ²(λ) for each (dataset, m) of the privacy table, at its per-query budget ``(ε, δ)``.

    ``chosen`` marks the λ* the table's σ was calibrated at.
    """
    frames = []
    budgets = privacy.drop_duplicates(["dataset", "m"])[["dataset", "m", "epsilon_query", "delta_query", "gnmax_order"]]
    for row in budgets.itertuples(index=False):
        orders, variance = rdp.gnmax_variance_curve(row.epsilon_query, row.delta_query, max_order)
        frames.append(
            pd.DataFrame(
                {
                    "dataset": row.dataset,
                    "m": row.m,
                    "epsilon_query": row.epsilon_query,
                    "delta_query": row.delta_query,
                    "order": orders,
                    "variance": variance,
                    "chosen": np.isclose(orders, row.gnmax_order, rtol=0, atol=1e-9),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
