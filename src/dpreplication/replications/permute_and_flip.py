"""Permute-and-flip ≡ report-noisy-max with exponential noise (Ding et al. 2021).

One function per figure or table of the replication spec (§3–§6), each
returning a tidy DataFrame. The mechanisms and statistics are the shared
ones in :mod:`dpreplication.mechanisms.selection` and
:mod:`dpreplication.statistics`; this module only composes them.
Random steps draw from ``seeding.generator(root_seed, PAPER, figure, ...)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, stats

from dpreplication import seeding
from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms.quality import median_scores, mode_scores
from dpreplication.statistics import (
    counts,
    goodness_of_fit,
    homogeneity,
    total_variation,
    tv_null_quantiles,
    wilson_interval,
)

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

LEMMA_CHAIN = [
    (A2, A3, "Lemma 2", "equal"),
    (A3, A4, "Lemma 3", "equal"),
    (A4, A1, "Lemma 4", "equal"),
    (A2, A1, "Theorem 5", "equal"),
    (A1, G, "control", "differ"),
    (A1, L, "control", "differ"),
]
"""(left, right, result, expectation): the equivalence chain and the controls that must differ."""


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
    """Expected error, top-item probability, TV to P&F and the TV bound of spec §3.3 per case."""
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


def worst_case(ns: list[int], epsilon: float = 1.0) -> pd.DataFrame:
    """McKenna–Sheldon worst case: one item at ``q*``, ``n - 1`` items ``c`` below, max over ``c``.

    Errors come from the exact pmf evaluators; the closed forms of spec §3.2
    (P&F ``c(1 - (1-(1-p)^n)/(n p))``, EM ``c(n-1)p/(1+(n-1)p)``, ``p = e^{-εc/2}``)
    are reported beside them as a check.
    """
    closed = {
        PF: lambda n, c, p: c * (1 - (1 - (1 - p) ** n) / (n * p)),
        EM: lambda n, c, p: c * (n - 1) * p / (1 + (n - 1) * p),
    }
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
                    "worst_error_closed_form": closed[mechanism](n, gap, np.exp(-epsilon * gap / 2)),
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
            loss = np.max(np.abs(np.log(pmf_of(q, epsilon)) - np.log(pmf_of(neighbour, epsilon))))
            worst[mechanism] = max(worst[mechanism], loss / epsilon)
    rows = [
        {"mechanism": m, "check": "max loss / ε over random neighbours", "epsilon": np.nan, "value": v}
        for m, v in worst.items()
    ]
    for epsilon in (0.5, 1.0, 2.0):
        for mechanism, pmf_of in sel.EXACT_PMFS.items():
            loss = np.max(np.abs(np.log(pmf_of([0, 0], epsilon)) - np.log(pmf_of([1, -1], epsilon))))
            rows.append(
                {
                    "mechanism": mechanism,
                    "check": "loss / ε on (0,0) vs (1,-1)",
                    "epsilon": epsilon,
                    "value": loss / epsilon,
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- equivalence by sampling


def _draw(algorithm: str, q, epsilon, n, root_seed, *keys) -> np.ndarray:
    rng = seeding.generator(root_seed, PAPER, *keys, algorithm, n)
    return sel.SAMPLERS[algorithm](q, epsilon, 1.0, n, rng)


def pmf_bars(
    vector: str, epsilons: list[float], n: int, algorithms: list[str], confidence: float, root_seed: int
) -> pd.DataFrame:
    """Figure F1: exact pmfs and empirical frequencies (Wilson intervals) of A1–A4."""
    q = score_vector(vector)
    rows = []
    for epsilon in epsilons:
        for mechanism, pmf_of in sel.EXACT_PMFS.items():
            pmf = pmf_of(q, epsilon)
            rows += [
                {
                    "epsilon": epsilon,
                    "item": r,
                    "series": mechanism,
                    "kind": "exact",
                    "probability": pmf[r],
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                    "n": 0,
                }
                for r in range(q.size)
            ]
        for algorithm in algorithms:
            observed = counts(_draw(algorithm, q, epsilon, n, root_seed, "pmf_bars", vector, epsilon), q.size)
            low, high = wilson_interval(observed, n, confidence)
            rows += [
                {
                    "epsilon": epsilon,
                    "item": r,
                    "series": algorithm,
                    "kind": "sampled",
                    "probability": observed[r] / n,
                    "ci_low": low[r],
                    "ci_high": high[r],
                    "n": n,
                }
                for r in range(q.size)
            ]
    return pd.DataFrame(rows)


def tv_convergence(
    vector: str,
    epsilon: float,
    sample_sizes: list[int],
    literal_max_n: int,
    algorithms: list[str],
    null_draws: int,
    null_quantiles: list[float],
    root_seed: int,
) -> pd.DataFrame:
    """Figure F2: TV(empirical, exact P&F) against ``n`` with a parametric-bootstrap null band.

    A1–A4 should follow the ``n^{-1/2}`` band; G and L flatten at their exact TV.
    """
    q = score_vector(vector)
    reference = sel.permute_and_flip_pmf(q, epsilon)
    rows = []
    for n in sample_sizes:
        band = tv_null_quantiles(
            reference, n, null_quantiles, null_draws, seeding.generator(root_seed, PAPER, "tv_convergence", "null", n)
        )
        rows += [
            {"n": n, "series": f"null {100 * a:g}%", "kind": "null band", "tv": t} for a, t in zip(null_quantiles, band)
        ]
        for algorithm in algorithms:
            if algorithm == A2 and n > literal_max_n:
                continue
            observed = counts(_draw(algorithm, q, epsilon, n, root_seed, "tv_convergence"), q.size)
            rows.append(
                {"n": n, "series": algorithm, "kind": "sampled", "tv": total_variation(observed / n, reference)}
            )
    for mechanism in (EM, LAP):
        exact_tv = total_variation(sel.EXACT_PMFS[mechanism](q, epsilon), reference)
        rows += [
            {"n": n, "series": f"exact TV({mechanism}, P&F)", "kind": "exact", "tv": exact_tv} for n in sample_sizes
        ]
    return pd.DataFrame(rows)


def pp_plot(vector: str, epsilon: float, n: int, algorithms: list[str], root_seed: int) -> pd.DataFrame:
    """Figure F3: empirical frequency of each item against its exact P&F (and EM) probability."""
    q = score_vector(vector)
    exact = {m: f(q, epsilon) for m, f in sel.EXACT_PMFS.items()}
    rows = []
    for algorithm in algorithms:
        observed = counts(_draw(algorithm, q, epsilon, n, root_seed, "pp_plot", vector, epsilon), q.size)
        rows += [
            {
                "item": r,
                "series": algorithm,
                "empirical": observed[r] / n,
                "exact_pf": exact[PF][r],
                "exact_em": exact[EM][r],
                "exact_laplace": exact[LAP][r],
                "n": n,
            }
            for r in range(q.size)
        ]
    return pd.DataFrame(rows)


def lemma_chain(
    cases: list[dict],
    n: int,
    literal_n_large_k: int,
    large_k: int,
    root_seed: int,
    histograms: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Table T1: two-sample and goodness-of-fit tests along the lemma chain, with controls.

    Each cell compares samples of two algorithms (χ² homogeneity, empirical TV)
    and each side with the exact P&F pmf (Pearson χ², small cells pooled).
    The literal A2 loop uses ``literal_n_large_k`` draws when ``k ≥ large_k``.
    """
    rows = []
    for case in cases:
        vector, epsilon = case["vector"], case["epsilon"]
        q = score_vector(vector, histograms)
        reference = sel.permute_and_flip_pmf(q, epsilon)
        samples = {}
        for algorithm in sorted({a for pair in LEMMA_CHAIN for a in pair[:2]}):
            draws = literal_n_large_k if (algorithm == A2 and q.size >= large_k) else n
            samples[algorithm] = counts(
                _draw(algorithm, q, epsilon, draws, root_seed, "lemma_chain", vector, epsilon), q.size
            )
        for left, right, result, expectation in LEMMA_CHAIN:
            a, b = samples[left], samples[right]
            _, p_value = homogeneity(a, b)
            rows.append(
                {
                    "comparison": f"{left} vs {right}",
                    "result": result,
                    "expectation": expectation,
                    "vector": vector,
                    "k": q.size,
                    "epsilon": epsilon,
                    "n_left": int(a.sum()),
                    "n_right": int(b.sum()),
                    "homogeneity_p": p_value,
                    "tv_between": total_variation(a / a.sum(), b / b.sum()),
                    "gof_p_left": goodness_of_fit(a, reference).chi2_pvalue,
                    "gof_p_right": goodness_of_fit(b, reference).chi2_pvalue,
                }
            )
    return pd.DataFrame(rows)


def lemma_internals(vector: str, epsilon: float, n: int, root_seed: int) -> pd.DataFrame:
    """Table T2: the random objects inside Lemmas 2–4, on shared draws (spec §4 T2).

    (a) ``P(i ∈ S) = p_i`` (z-scores); (b) ``S = S'`` on every draw and A4's
    choice is uniform within ``S'``; (c) ``v†_i - q_i ~ Expo(λ)`` (KS) and
    A4's output is ``argmax v†`` on every draw.
    """
    q = score_vector(vector)
    b = sel.noise_scale(epsilon)
    top = q.max()
    rng = seeding.generator(root_seed, PAPER, "lemma_internals", vector, epsilon, n)
    noise = b * rng.standard_exponential((n, q.size))
    fresh = b * rng.standard_exponential((n, q.size))
    p = sel.flip_probabilities(q, epsilon)
    rows = []

    in_s = q + noise >= top
    frequency = in_s.mean(axis=0)
    z = (frequency - p) / np.sqrt(np.maximum(p * (1 - p), 1e-300) / n)
    z[p == 1] = np.where(frequency[p == 1] == 1, 0.0, np.inf)
    rows += [
        {
            "lemma": "Lemma 2",
            "check": "P(i in S) = p_i",
            "subject": f"item {i}",
            "observed": frequency[i],
            "expected": p[i],
            "statistic": z[i],
            "p_value": 2 * stats.norm.sf(abs(z[i])),
        }
        for i in range(q.size)
    ]

    capped = np.minimum(q + noise, top)
    in_s_prime = capped == top
    mismatched_sets = int(np.any(in_s != in_s_prime, axis=1).sum())
    rows.append(
        {
            "lemma": "Lemma 3",
            "check": "S == S_prime on every draw",
            "subject": "all draws",
            "observed": mismatched_sets,
            "expected": 0,
            "statistic": np.nan,
            "p_value": np.nan,
        }
    )
    choice = sel.intermediate_b_from_noise(q, noise, fresh)
    size = in_s_prime.sum(axis=1)
    rank = np.cumsum(in_s_prime, axis=1)[np.arange(n), choice] - 1
    for s in range(2, q.size + 1):
        ranks = rank[size == s]
        if ranks.size < 5 * s:
            continue
        observed = np.bincount(ranks, minlength=s)
        chi2, p_value = stats.chisquare(observed)
        rows.append(
            {
                "lemma": "Lemma 3",
                "check": "A4 choice uniform within S_prime",
                "subject": f"|S_prime| = {s}",
                "observed": ranks.size,
                "expected": np.nan,
                "statistic": chi2,
                "p_value": p_value,
            }
        )

    dagger = np.where(in_s_prime, top + fresh, q + noise)
    for i in range(q.size):
        ks = stats.kstest(dagger[:, i] - q[i], stats.expon(scale=b).cdf)
        rows.append(
            {
                "lemma": "Lemma 4",
                "check": "v_dagger - q ~ Expo(rate eps/2)",
                "subject": f"item {i}",
                "observed": float(np.mean(dagger[:, i] - q[i])),
                "expected": b,
                "statistic": ks.statistic,
                "p_value": ks.pvalue,
            }
        )
    mismatched_choice = int((dagger.argmax(axis=1) != choice).sum())
    rows.append(
        {
            "lemma": "Lemma 4",
            "check": "A4 output == argmax v_dagger",
            "subject": "all draws",
            "observed": mismatched_choice,
            "expected": 0,
            "statistic": np.nan,
            "p_value": np.nan,
        }
    )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- utility (McKenna–Sheldon)


def epsilon_for_error(scores, target: float, pmf_of=sel.exponential_mechanism_pmf) -> float:
    """The ε at which a mechanism's exact expected error equals ``target`` (error decreases in ε)."""
    q = np.asarray(scores, dtype=float)

    def gap(log_epsilon):
        return sel.expected_error(pmf_of(q, np.exp(log_epsilon)), q) - target

    return float(np.exp(optimize.brentq(gap, np.log(1e-9), np.log(1e3), xtol=1e-13, rtol=1e-14)))


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
        epsilon_one = epsilon_for_error(q, 1.0)
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
            draws = _draw(A1, q, epsilon, mc_draws, root_seed, "utility", dataset, task, epsilon)
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
        epsilon = epsilon_for_error(q, target_error)
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
                "epsilon_em_error_one": epsilon_for_error(q, 1.0),
            }
        )
    return pd.DataFrame(rows)


def anchors(histograms: dict[str, np.ndarray], points: list[dict]) -> pd.DataFrame:
    """The paper's quoted anchors: EM/P&F error ratio at ε, and how much more ε EM needs.

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
                "epsilon_ratio": epsilon_for_error(q, errors[PF]) / epsilon,
            }
        )
    return pd.DataFrame(rows)
