"""Permute-and-flip ≡ report-noisy-max with exponential noise (Ding et al. 2021).

The exact tables, the privacy audit and the utility comparison with the exponential mechanism:
one function per figure or table of the replication spec (§3, §5, §6), each returning a tidy
DataFrame. The mechanisms' exact pmfs, their worst-case errors and the ε for a target error are in
:mod:`dpreplication.mechanisms.selection`, their samplers in
:mod:`dpreplication.mechanisms.selection_sampling`, the privacy loss in
:mod:`dpreplication.accounting.privacy_loss`; this module builds the grids and tables. The
equivalence by sampling (§4) is :mod:`dpreplication.replications.permute_and_flip.sampling`.
Random steps draw from ``seeding.generator(root_seed, PAPER, figure, ...)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, stats

from dpreplication import seeding
from dpreplication.accounting.privacy_loss import max_privacy_loss
from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms import selection_sampling
from dpreplication.mechanisms.quality import median_scores, mode_scores
from dpreplication.statistics import total_variation

PAPER = "permute_and_flip"
PF, EM, LAP = "P&F = RNM-Exp", "EM = RNM-Gumbel", "RNM-Laplace"
A1, A2, A2_BATCH, A3, A4, G, L = (
    "A1 RNM-Exp",
    "A2 P&F literal",
    "A2 P&F batch",
    "A3 Intermediate A",
    "A4 Intermediate B",
    "G RNM-Gumbel (EM)",
    "L RNM-Laplace",
)
QUALITY = {"mode": mode_scores, "median": median_scores}


def score_vector(name: str, histograms: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """Named test vectors of spec §3.4, or ``"<DATASET>-<task>"`` for a DPBench histogram."""
    fixed = {
        "Q5": [4, 3, 3, 1, 0],
        "QT": [1, 1, 1, 0, 0],
        "Q100": [(37 * i) % 101 for i in range(100)],
        "Q100/5": [((37 * i) % 101) / 5 for i in range(100)],
    }
    if name in fixed:
        return np.asarray(fixed[name], dtype=float)
    dataset, _, task = name.partition("-")
    if histograms is None or dataset not in histograms or task not in QUALITY:
        raise KeyError(
            f"unknown score vector {name!r}: use {sorted(fixed)} or '<DATASET>-mode|median' with its histogram"
        )
    return QUALITY[task](histograms[dataset])


def draw(algorithm: str, q, epsilon, n, root_seed, *keys) -> np.ndarray:
    """Draw ``n`` samples from a labelled sampler of :data:`~dpreplication.mechanisms.selection_sampling.SAMPLERS`.

    The draws come from the stream ``(root_seed, PAPER, *keys, algorithm, n)``.
    """
    rng = seeding.generator(root_seed, PAPER, *keys, algorithm, n)
    return selection_sampling.SAMPLERS[algorithm](q, epsilon, 1.0, n, rng)


# --------------------------------------------------------------------------- exact tables


def exact_pmfs(cases: list[dict]) -> pd.DataFrame:
    """Exact pmfs of P&F, EM and RNM-Laplace for each ``{vector, epsilon}`` case (Δ = 1)."""
    rows = []
    for case in cases:
        q = score_vector(case["vector"])
        for mechanism, pmf_of in sel.EXACT_PMFS.items():
            pmf = pmf_of(q, case["epsilon"])
            rows += [
                {
                    "vector": case["vector"],
                    "epsilon": case["epsilon"],
                    "mechanism": mechanism,
                    "item": r,
                    "score": q[r],
                    "probability": pmf[r],
                }
                for r in range(q.size)
            ]
    return pd.DataFrame(rows)


def exact_summary(cases: list[dict]) -> pd.DataFrame:
    """Tabulate the expected error, top-item probability, TV to P&F and the TV bound of spec §3.3 per case."""
    rows = []
    for case in cases:
        q, epsilon = score_vector(case["vector"]), case["epsilon"]
        pmfs = {m: f(q, epsilon) for m, f in sel.EXACT_PMFS.items()}
        bound = float(np.prod(1 - sel.flip_probabilities(q, epsilon) / 2))
        for mechanism, pmf in pmfs.items():
            rows.append(
                {
                    "vector": case["vector"],
                    "epsilon": epsilon,
                    "mechanism": mechanism,
                    "expected_error": sel.expected_error(pmf, q),
                    "top_probability": pmf[np.argmax(q)],
                    "tv_to_pf": total_variation(pmf, pmfs[PF]),
                    "tv_to_em": total_variation(pmf, pmfs[EM]),
                    "laplace_tv_bound": bound,
                    "sum_minus_one": pmf.sum() - 1.0,
                }
            )
    return pd.DataFrame(rows)


def _worst_case_family(n: int, gap: float) -> np.ndarray:
    return np.concatenate(([gap], np.zeros(n - 1)))


def worst_case(*, ns: list[int], epsilon: float) -> pd.DataFrame:
    """McKenna–Sheldon worst case: one item at ``q*``, ``n - 1`` items ``c`` below, max over ``c``.

    Errors come from the exact pmf evaluators; the closed forms of spec §3.2
    (:func:`~dpreplication.mechanisms.selection.permute_and_flip_worst_case_error` and its
    exponential-mechanism twin) are reported beside them as a check.
    """
    closed = {PF: sel.permute_and_flip_worst_case_error, EM: sel.exponential_mechanism_worst_case_error}
    rows = []
    for n in ns:
        for mechanism in (PF, EM):
            pmf_of = sel.EXACT_PMFS[mechanism]

            def negative_error(c):
                q = _worst_case_family(n, c)
                return -sel.expected_error(pmf_of(q, epsilon), q)

            best = optimize.minimize_scalar(
                negative_error, bounds=(1e-9, 60.0 / epsilon), method="bounded", options={"xatol": 1e-10}
            )
            gap = float(best.x)
            rows.append(
                {
                    "n": n,
                    "epsilon": epsilon,
                    "mechanism": mechanism,
                    "worst_gap": gap,
                    "worst_error": -float(best.fun),
                    "worst_error_closed_form": closed[mechanism](n, gap, epsilon),
                }
            )
    frame = pd.DataFrame(rows)
    em = frame[frame.mechanism == EM].set_index("n").worst_error
    frame["ratio_em_over_pf"] = frame.n.map(em / frame[frame.mechanism == PF].set_index("n").worst_error)
    return frame


def privacy_audit(pairs: int, max_k: int, epsilon_range: tuple[float, float], root_seed: int) -> pd.DataFrame:
    """Exact ε-DP check of the three pmfs on random neighbouring score vectors (spec check 6).

    For ``pairs`` random integer score vectors ``q`` (``k ≤ max_k``) and neighbours
    ``q' = q + d``, ``d ∈ {-1, 0, 1}^k``, computes ``max_r |log P(r) - log P'(r)| / ε``
    (≤ 1 for an ε-DP mechanism), and the tight pair ``(0, 0)`` vs ``(1, -1)``.
    """
    rng = seeding.generator(root_seed, PAPER, "privacy_audit")
    worst = {m: 0.0 for m in sel.EXACT_PMFS}
    for _ in range(pairs):
        k = int(rng.integers(2, max_k + 1))
        q = rng.integers(0, 6, size=k).astype(float)
        neighbour = q + rng.integers(-1, 2, size=k)
        epsilon = float(rng.uniform(*epsilon_range))
        for mechanism, pmf_of in sel.EXACT_PMFS.items():
            loss = max_privacy_loss(pmf_of(q, epsilon), pmf_of(neighbour, epsilon))
            worst[mechanism] = max(worst[mechanism], loss / epsilon)
    rows = [
        {"mechanism": m, "check": "max loss / ε over random neighbours", "epsilon": np.nan, "value": v}
        for m, v in worst.items()
    ]
    for epsilon in (0.5, 1.0, 2.0):
        for mechanism, pmf_of in sel.EXACT_PMFS.items():
            loss = max_privacy_loss(pmf_of([0, 0], epsilon), pmf_of([1, -1], epsilon))
            rows.append(
                {
                    "mechanism": mechanism,
                    "check": "loss / ε on (0,0) vs (1,-1)",
                    "epsilon": epsilon,
                    "value": loss / epsilon,
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- utility (McKenna–Sheldon)


def utility_curves(
    histogram: np.ndarray,
    dataset: str,
    tasks: list[str],
    n_epsilons: int,
    epsilon_min: float,
    mc_epsilons: int,
    mc_draws: int,
    root_seed: int,
) -> pd.DataFrame:
    """Figure F4 (one dataset): exact expected error of EM, P&F and RNM-Laplace against ε.

    ε runs linearly from ``epsilon_min`` (or ``ε₁/100`` when ``ε₁`` is smaller)
    to ``ε₁``, the ε at which EM's error is 1. Monte Carlo means of A1 (95 % CI)
    at ``mc_epsilons`` points overlay the exact P&F curve.
    """
    rows = []
    for task in tasks:
        q = QUALITY[task](histogram)
        epsilon_one = sel.epsilon_for_expected_error(q, 1.0)
        grid = np.linspace(min(epsilon_min, epsilon_one / 100), epsilon_one, n_epsilons)
        for epsilon in grid:
            for mechanism, pmf_of in sel.EXACT_PMFS.items():
                rows.append(
                    {
                        "dataset": dataset,
                        "task": task,
                        "epsilon": epsilon,
                        "series": mechanism,
                        "kind": "exact",
                        "error": sel.expected_error(pmf_of(q, epsilon), q),
                        "ci_low": np.nan,
                        "ci_high": np.nan,
                    }
                )
        for epsilon in grid[np.linspace(0, n_epsilons - 1, mc_epsilons + 2).round().astype(int)[1:-1]]:
            draws = draw(A1, q, epsilon, mc_draws, root_seed, "utility", dataset, task, epsilon)
            errors = q.max() - q[draws]
            half = stats.norm.ppf(0.975) * errors.std(ddof=1) / np.sqrt(mc_draws)
            rows.append(
                {
                    "dataset": dataset,
                    "task": task,
                    "epsilon": epsilon,
                    "series": f"{A1} (Monte Carlo)",
                    "kind": "sampled",
                    "error": errors.mean(),
                    "ci_low": errors.mean() - half,
                    "ci_high": errors.mean() + half,
                }
            )
    return pd.DataFrame(rows)


def epsilon_at_em_error(histogram: np.ndarray, dataset: str, tasks: list[str], target_error: float) -> pd.DataFrame:
    """Table T3 (one dataset): ε where EM's error is ``target_error``; P&F and RNM-Laplace there."""
    rows = []
    for task in tasks:
        q = QUALITY[task](histogram)
        epsilon = sel.epsilon_for_expected_error(q, target_error)
        errors = {m: sel.expected_error(f(q, epsilon), q) for m, f in sel.EXACT_PMFS.items()}
        rows.append(
            {
                "dataset": dataset,
                "task": task,
                "epsilon_em_target": epsilon,
                "em_error": errors[EM],
                "pf_error": errors[PF],
                "laplace_error": errors[LAP],
                "ratio_em_over_pf": errors[EM] / errors[PF],
                "epsilon_em_error_one": sel.epsilon_for_expected_error(q, 1.0),
            }
        )
    return pd.DataFrame(rows)


def anchors(histograms: dict[str, np.ndarray], points: list[dict]) -> pd.DataFrame:
    """Recompute the paper's quoted anchors: EM/P&F error ratio at ε, and how much more ε EM needs.

    ``epsilon_ratio = ε_EM / ε`` where ``ε_EM`` gives EM the error P&F has at ``ε``.
    """
    rows = []
    for point in points:
        q = QUALITY[point["task"]](histograms[point["dataset"]])
        epsilon = point["epsilon"]
        errors = {m: sel.expected_error(f(q, epsilon), q) for m, f in sel.EXACT_PMFS.items()}
        rows.append(
            {
                "dataset": point["dataset"],
                "task": point["task"],
                "epsilon": epsilon,
                "em_error": errors[EM],
                "pf_error": errors[PF],
                "laplace_error": errors[LAP],
                "error_ratio": errors[EM] / errors[PF],
                "epsilon_ratio": sel.epsilon_for_expected_error(q, errors[PF]) / epsilon,
            }
        )
    return pd.DataFrame(rows)
