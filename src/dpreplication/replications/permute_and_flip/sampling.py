"""Permute-and-flip ≡ report-noisy-max with exponential noise (Ding et al. 2021): the equivalence by sampling.

Spec §4: Figures F1–F3, Tables T1–T2. Every algorithm of the chain (A1 RNM-Exp, A2 literal and
batched permute-and-flip, A3/A4 the intermediate algorithms of Lemmas 2–4) and the controls
(G = EM, L = RNM-Laplace) are sampled and compared with the exact pmfs and with each other. The
samplers and the lemmas' internal objects are in :mod:`dpreplication.mechanisms.selection_sampling`,
the exact pmfs in :mod:`dpreplication.mechanisms.selection`, the tests in :mod:`dpreplication.statistics`; this module builds the grids and tables. Random steps
draw from ``seeding.generator(root_seed, PAPER, figure, ...)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from dpreplication import seeding
from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms import selection_sampling
from dpreplication.replications.permute_and_flip.exact import (
    A1,
    A2,
    A3,
    A4,
    EM,
    LAP,
    PAPER,
    PF,
    G,
    L,
    draw,
    score_vector,
)
from dpreplication.statistics import (
    binomial_z_scores,
    counts,
    goodness_of_fit,
    homogeneity,
    total_variation,
    tv_null_quantiles,
    wilson_interval,
)

LEMMA_CHAIN = [
    (A2, A3, "Lemma 2", "equal"),
    (A3, A4, "Lemma 3", "equal"),
    (A4, A1, "Lemma 4", "equal"),
    (A2, A1, "Theorem 5", "equal"),
    (A1, G, "control", "differ"),
    (A1, L, "control", "differ"),
]
"""(left, right, result, expectation): the equivalence chain and the controls that must differ."""


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
            observed = counts(draw(algorithm, q, epsilon, n, root_seed, "pmf_bars", vector, epsilon), q.size)
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
            observed = counts(draw(algorithm, q, epsilon, n, root_seed, "tv_convergence"), q.size)
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
        observed = counts(draw(algorithm, q, epsilon, n, root_seed, "pp_plot", vector, epsilon), q.size)
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
                draw(algorithm, q, epsilon, draws, root_seed, "lemma_chain", vector, epsilon), q.size
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
    rng = seeding.generator(root_seed, PAPER, "lemma_internals", vector, epsilon, n)
    noise = b * rng.standard_exponential((n, q.size))
    fresh = b * rng.standard_exponential((n, q.size))
    objects = selection_sampling.intermediate_objects(q, noise, fresh)
    in_s, in_s_prime, dagger, choice = objects.in_s, objects.in_s_prime, objects.v_dagger, objects.choice
    p = sel.flip_probabilities(q, epsilon)
    rows = []

    frequency = in_s.mean(axis=0)
    z = binomial_z_scores(frequency, p, n)
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
