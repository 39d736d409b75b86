"""DaRRM: private majority of K private binary mechanisms (Jiang, Zhang & Joshi, TMLR 2024).

Setting (spec §1.1). ``K`` (odd) independent mechanisms ``M_i``, each ``(ε, Δ)``-DP with
outputs in ``{0, 1}``; ``p_i = Pr[M_i(D) = 1]``, ``p'_i = Pr[M_i(D') = 1]``. The vote count
``L = Σ_i S_i`` is Poisson-binomial with pmf ``α_l = Pr[L = l]``. The majority is
``g(S) = 1{L ≥ (K+1)/2}``.

DaRRM_γ (Algorithm 1). With probability ``γ(L)`` release ``g(S)``, otherwise a fair coin:

    Pr[A(D) = 1] = ½ + ½ Σ_l s_l α_l γ(l),      s_l = +1 if l > K/2 else −1.

Privacy (spec §1.1, App. C.1). With ``E = e^{mε}`` and the privacy cost

    f(p, p'; γ) = Σ_l s_l (α_l − E α'_l) γ(l),

DaRRM_γ is ``(mε, δ)``-DP iff ``max f ≤ E − 1 + 2δ`` and ``max (−f) ≤ E − 1 + 2δ`` over
``(p_i, p'_i) ∈ F`` (the feasible region of one ``(ε, Δ)``-DP binary mechanism). ``f`` is
linear in every pair, so the maximum sits at vertices of ``F`` (Lemma 5.1); the PB pmf is
permutation invariant, so only vertex *multisets* matter: ``C(K+V-1, V-1)`` of them for the
``V`` vertices (8 if ``Δ > 0``, 4 if ``Δ = 0``).

The region ``F``, its vertex multisets and the privacy condition on them are in
:mod:`dpreplication.mechanisms.feasible_region`; the utility ``E(γ)`` of DaRRM_γ, its priors and
the optimiser's objective in :mod:`dpreplication.mechanisms.majority_utility`; GNMax, the
baseline of private prediction, in :mod:`dpreplication.mechanisms.gnmax`.

Pmfs are computed without cancellation: the Poisson-binomial by the stable recursion
``α ← (1 − p) α + p · shift(α)`` (all terms non-negative), hypergeometric pmfs by
``scipy.stats`` (log-gamma based).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy import stats

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.releases.recorder import active_ledger, record_majority_vote
from dpreplication.validation import RAISES, in_unit_interval, non_negative, positive

DARRM_PARAMETERS = parameter_entries(
    """
    K : int
        Number of mechanisms, odd, ``K ≥ 1`` (``ValueError`` otherwise).
    gamma : array_like of shape (K + 1,)
        ``γ(0..K)``, each in ``[0, 1]``; ``K`` odd.
    alpha : array_like of shape (..., K + 1)
        Vote-count pmfs ``α_l``; ``K`` odd.
    """
)
"""Numpydoc entries of DaRRM's ``K``, noise function ``gamma`` and vote-count pmfs ``alpha`` (every DaRRM module)."""

DARRM_RESULT_FIELDS = parameter_entries(
    """
    K : int
        Number of mechanisms.
    m : float
        Target budget multiplier.
    epsilon : float
        ε of each mechanism.
    Delta : float
        δ of each mechanism (the spec's Δ).
    """
)
"""Numpydoc entries of the DaRRM setting as fields of a result (a privacy report, an LP's γ_opt)."""

_PARAMETERS = {
    **DARRM_PARAMETERS,
    **parameter_entries(
        """
        m : int
            Number of subsampled mechanisms, ``1 ≤ m ≤ K`` (``ValueError`` otherwise).
        voter_epsilon : float, ε > 0
            ε of each voting mechanism (as in :func:`sample_darrm`).
        voter_delta : float, 0 ≤ Δ < 1
            δ of each voting mechanism.
        """
    ),
}

# --------------------------------------------------------------------------- basics


def validate_ensemble_size(K: int) -> int:
    """Return ``K`` as an int; DaRRM needs an odd number of mechanisms (no majority ties).

    Parameters
    ----------
    K : int
        Number of mechanisms: an odd integer ``K ≥ 1`` (an integral float passes);
        ``ValueError`` otherwise.
    """
    if int(K) != K or K < 1 or K % 2 == 0:
        raise ValueError(f"K must be a positive odd integer, got {K}")
    return int(K)


@shared_parameters(_PARAMETERS)
def majority_signs(K: int) -> np.ndarray:
    """``s_l = +1`` for ``l > K/2`` and ``−1`` for ``l < K/2``, ``l = 0..K``.

    Parameters
    ----------
    {K}

    Returns
    -------
    ndarray of shape (K + 1,)
        The signs ``s_l`` (spec §1.1).
    """
    K = validate_ensemble_size(K)
    return np.where(np.arange(K + 1) > K / 2, 1.0, -1.0)


def symmetric_gamma(upper_half) -> np.ndarray:
    """Full ``γ(0..K)`` from its upper half ``γ((K+1)/2..K)`` using ``γ(l) = γ(K − l)``.

    Parameters
    ----------
    upper_half : array_like of shape ((K + 1)/2,)
        ``γ((K+1)/2..K)``, each in ``[0, 1]``.
    """
    x = np.asarray(upper_half, dtype=float)
    return np.concatenate([x[::-1], x])


@shared_parameters(_PARAMETERS)
def gamma_upper_half(gamma) -> np.ndarray:
    """``γ((K+1)/2..K)`` of a full ``γ(0..K)``.

    Parameters
    ----------
    {gamma}
    """
    g = np.asarray(gamma, dtype=float)
    return g[g.size // 2 :]


def composed_delta(m: int, Delta: float, composition: str = "general") -> float:
    """δ of the ``m``-fold composition of ``(ε, Δ)``-DP mechanisms.

    ``"general"``: ``1 − (1 − Δ)^m`` (the ``i = 0`` term of Kairouz et al.'s optimal
    composition, which the paper's simulations use as target δ [C]); ``"simple"``: ``mΔ``
    (what the authors' code uses; numerically almost identical).

    Parameters
    ----------
    m : int
        Number of composed mechanisms, ``m ≥ 0`` and finite (``ValueError`` otherwise).
    Delta : float
        δ of each mechanism, ``0 ≤ Δ ≤ 1`` (``ValueError`` otherwise).
    composition : {"general", "simple"}
        The formula; ``ValueError`` otherwise.
    """
    non_negative("m", m)
    in_unit_interval("Delta", Delta, include_one=True)
    if composition == "general":
        return float(-np.expm1(m * np.log1p(-Delta)))
    if composition == "simple":
        return float(m * Delta)
    raise ValueError(f"composition must be 'general' or 'simple', got {composition!r}")


def poisson_binomial_pmf(p) -> np.ndarray:
    """Pmf of ``Σ_i Bernoulli(p_i)`` along the last axis: shape ``(..., K)`` → ``(..., K+1)``.

    Stable recursion ``α^{(k)}_l = (1 − p_k) α^{(k−1)}_l + p_k α^{(k−1)}_{l−1}`` (sums of
    non-negative terms; no DFT round-off, entries never negative). The vote-count pmf ``α`` of
    spec §1.1.

    Parameters
    ----------
    p : array_like of shape (..., K)
        Success probabilities ``p_i ∈ [0, 1]``.

    Returns
    -------
    ndarray of shape (..., K + 1)
        ``α_l = Pr[L = l]``.
    """
    p = np.asarray(p, dtype=float)
    K = p.shape[-1]
    alpha = np.zeros(p.shape[:-1] + (K + 1,))
    alpha[..., 0] = 1.0
    for k in range(K):
        pk = p[..., k, None]
        head = alpha[..., : k + 1].copy()
        alpha[..., : k + 1] = head * (1.0 - pk)
        alpha[..., 1 : k + 2] += head * pk
    return alpha


@shared_parameters(_PARAMETERS)
def darrm_probability_one(gamma, alpha) -> np.ndarray:
    """``Pr[DaRRM_γ = 1] = ½ + ½ Σ_l s_l α_l γ(l)`` for vote-count pmfs ``alpha`` (..., K+1).

    The output distribution of DaRRM_γ (Algorithm 1, spec §1.1), ``(mε, δ)``-DP when γ passes
    :func:`dpreplication.accounting.privacy_verifier.verify_privacy`.

    Parameters
    ----------
    {gamma, alpha}

    Returns
    -------
    ndarray of shape (...)
        ``Pr[DaRRM_γ = 1]`` per pmf.
    """
    alpha = np.asarray(alpha, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    s = majority_signs(alpha.shape[-1] - 1)
    return 0.5 + 0.5 * (alpha @ (s * gamma))


@shared_parameters(_PARAMETERS)
def majority_probability_one(alpha) -> np.ndarray:
    """``Pr[g(S) = 1] = Σ_{l > K/2} α_l`` (the non-private majority).

    Parameters
    ----------
    {alpha}
    """
    alpha = np.asarray(alpha, dtype=float)
    K = alpha.shape[-1] - 1
    return alpha[..., (K + 1) // 2 :].sum(axis=-1)


# --------------------------------------------------------------------------- the mechanism


def sample_darrm(
    votes, gamma, rng: np.random.Generator, *, voter_epsilon: float, voter_delta: float = 0.0
) -> np.ndarray:
    """DaRRM_γ (Algorithm 1) applied to each row of a binary vote matrix ``(n, K)``.

    Computes ``L``, keeps the true majority with probability ``γ(L)``, else outputs a fair coin. Privacy: ``(mε, δ)``-DP
    exactly when γ passes :func:`dpreplication.accounting.privacy_verifier.verify_privacy` for ``(K, m, ε, Δ, δ)``; the
    ledger records it as a majority vote of ``(voter_epsilon, voter_delta)``-DP voters.

    Parameters
    ----------
    votes : array_like of shape (n, K) or (K,)
        Binary votes ``S_i ∈ {0, 1}`` of the ``K`` mechanisms, ``K`` odd (``ValueError`` otherwise).
    gamma : array_like of shape (K + 1,)
        ``γ(0..K)``, each in ``[0, 1]`` (wrong shape: ``ValueError``).
    rng : numpy.random.Generator
        Source of the keep and coin draws.
    voter_epsilon : float, ε > 0
        ε of each voting mechanism.
    voter_delta : float, 0 ≤ Δ < 1
        δ of each voting mechanism (the spec's Δ).

    Returns
    -------
    ndarray of int64, shape (n,)
        The released bit of each row.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import gamma_subsampling, sample_darrm
    >>> votes = np.array([[1, 1, 1, 1, 0], [0, 0, 1, 0, 0]])
    >>> sample_darrm(votes, gamma_subsampling(5, 3), rng=np.random.default_rng(0), voter_epsilon=0.1).tolist()
    [1, 0]
    """
    votes = np.atleast_2d(np.asarray(votes))
    K = validate_ensemble_size(votes.shape[1])
    gamma = np.asarray(gamma, dtype=float)
    if gamma.shape != (K + 1,):
        raise ValueError(f"gamma must have K + 1 = {K + 1} entries, got {gamma.shape}")
    counts = votes.astype(np.int64).sum(axis=1)
    majority = counts > K / 2
    record_majority_vote("sample_darrm", gamma, voter_epsilon, voter_delta, count=counts.size)
    keep = rng.random(counts.size) < gamma[counts]
    coin = rng.random(counts.size) < 0.5
    return np.where(keep, majority, coin).astype(np.int64)


@shared_parameters(_PARAMETERS)
def sample_darrm_from_probabilities(
    p, gamma, n_samples: int, rng: np.random.Generator, *, voter_epsilon: float, voter_delta: float = 0.0
) -> np.ndarray:
    """``n_samples`` outputs of DaRRM_γ when mechanism ``i`` votes 1 with probability ``p_i``.

    Simulates DaRRM_γ (Algorithm 1) on independent votes; ``(mε, δ)``-DP when γ passes
    :func:`dpreplication.accounting.privacy_verifier.verify_privacy` (see :func:`sample_darrm`).

    Parameters
    ----------
    p : array_like of shape (K,)
        ``p_i ∈ [0, 1]``; ``K`` odd.
    gamma : array_like of shape (K + 1,)
        ``γ(0..K)``, each in ``[0, 1]``.
    n_samples : int
        Number of outputs, ``n_samples ≥ 0``.
    rng : numpy.random.Generator
        Source of the votes and of DaRRM's draws.
    {voter_epsilon, voter_delta}

    Returns
    -------
    ndarray of int64, shape (n_samples,)
        The released bits.
    """
    p = np.asarray(p, dtype=float)
    votes = rng.random((n_samples, p.size)) < p
    return sample_darrm(votes, gamma, rng, voter_epsilon=voter_epsilon, voter_delta=voter_delta)


# --------------------------------------------------------------------------- baselines


@shared_parameters(_PARAMETERS)
def subsample_majority_probability(K: int, m: int) -> np.ndarray:
    """``h_m(l)``: probability that the majority of ``m`` of the ``K`` votes is 1 given ``L = l`` (Lemma 3.1).

    The ``m`` votes are drawn without replacement; a fair coin breaks ties when ``m`` is even.
    ``h_m(l) = Σ_{j ≥ ⌈(m+1)/2⌉} Hypergeom(j; K, l, m) [+ ½ Hypergeom(m/2; K, l, m)]``.

    Parameters
    ----------
    {K, m}

    Returns
    -------
    ndarray of shape (K + 1,)
        ``h_m(0..K)``.
    """
    K = validate_ensemble_size(K)
    if not 1 <= m <= K:
        raise ValueError(f"need 1 ≤ m ≤ K, got m={m}, K={K}")
    l = np.arange(K + 1)[:, None]
    j = np.arange(m + 1)[None, :]
    pmf = stats.hypergeom.pmf(j, K, l, m)
    weight = np.where(2 * j > m, 1.0, np.where(2 * j == m, 0.5, 0.0))
    return (pmf * weight).sum(axis=1)


@shared_parameters(_PARAMETERS)
def gamma_subsampling(K: int, m: int) -> np.ndarray:
    """γ_Sub (Lemma 3.1): DaRRM form of the majority of ``m`` subsampled mechanisms.

    ``γ_Sub(l) = 2h_m(l) − 1`` for ``l ≥ (K+1)/2`` and ``1 − 2h_m(l)`` otherwise. Privacy:
    post-processing of ``m`` mechanisms, so ``(mε, 1 − (1 − Δ)^m)``-DP by composition.

    Parameters
    ----------
    {K, m}

    Returns
    -------
    ndarray of shape (K + 1,)
        ``γ_Sub(0..K)``.

    Examples
    --------
    >>> from dpreplication.mechanisms import gamma_subsampling
    >>> gamma_subsampling(5, 3).round(4).tolist()
    [1.0, 1.0, 0.4, 0.4, 1.0, 1.0]
    """
    h = subsample_majority_probability(K, m)
    return np.where(np.arange(K + 1) > K / 2, 2.0 * h - 1.0, 1.0 - 2.0 * h)


@shared_parameters(_PARAMETERS)
def gamma_double_subsampling(K: int, m: int) -> np.ndarray:
    """γ_DSub (Theorem 4.1): γ_Sub with ``2m − 1`` mechanisms if ``m ≤ (K−1)/2``, else ``γ ≡ 1``.

    Privacy: ``mε``-DP for i.i.d. mechanisms with ``Δ = δ = 0`` (Theorem 4.1, "amplification
    by 2"); the spec found numerically that it also holds for non-i.i.d. mechanisms.

    Parameters
    ----------
    {K}
    m : int
        Budget multiple, ``1 ≤ m ≤ K`` (any ``m > (K−1)/2`` gives ``γ ≡ 1``).

    Returns
    -------
    ndarray of shape (K + 1,)
        ``γ_DSub(0..K)``.

    Examples
    --------
    >>> from dpreplication.mechanisms import gamma_double_subsampling
    >>> gamma_double_subsampling(5, 3).round(4).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    K = validate_ensemble_size(K)
    if m <= (K - 1) // 2:
        return gamma_subsampling(K, 2 * m - 1)
    return np.ones(K + 1)


@shared_parameters(_PARAMETERS, RAISES)
def gamma_constant(
    K: int,
    m: int,
    epsilon: float,
    Delta: float = 0.0,
    delta: float | None = None,
    composition: str = "general",
    tau: float | None = None,
    majority_delta: float | None = None,
) -> np.ndarray:
    """γ_const: randomized response on the exact majority (App. A.1, code ``RR_deta_independent_gamma``).

    If ``g`` is ``(τε, λ)``-DP, the constant

        γ = (e^{mε} − 1 + 2δ) / ( 2(e^{τε} − e^{mε} + (1 + e^{mε})λ)/(e^{τε} + 1) + e^{mε} − 1 )

    makes DaRRM_γ ``(mε, δ)``-DP; with ``Δ = 0``, ``τ = K``, ``λ = 0`` it is
    ``tanh(mε/2)/tanh(Kε/2)``. Defaults [I]: ``τ = K`` (composition of all K mechanisms),
    ``λ = composed_delta(K, Δ, composition)``, ``δ = composed_delta(m, Δ, composition)``.
    The result is clipped to ``[0, 1]``.

    Parameters
    ----------
    {K}
    m : int
        Budget multiple: the target is ``(mε, δ)``-DP, ``1 ≤ m ≤ K``.
    epsilon : float
        ε > 0 of each mechanism, finite.
    Delta : float
        δ of each mechanism, ``0 ≤ Δ ≤ 1``.
    delta : float or None
        Target δ, ``0 ≤ δ < 1``; ``None``: ``composed_delta(m, Δ, composition)``.
    composition : {"general", "simple"}
        Formula of :func:`composed_delta` for the defaults.
    tau : float or None
        ``τ > 0`` (finite) such that ``g`` is ``(τε, λ)``-DP; ``None``: ``K``.
    majority_delta : float or None
        ``λ ∈ [0, 1]``; ``None``: ``composed_delta(K, Δ, composition)``.

    Returns
    -------
    ndarray of shape (K + 1,)
        The constant γ in every entry.

    {raises_out_of_range}

    Examples
    --------
    >>> from dpreplication.mechanisms import gamma_constant
    >>> gamma_constant(5, 3, epsilon=0.1).round(4).tolist()
    [0.6079, 0.6079, 0.6079, 0.6079, 0.6079, 0.6079]
    """
    K = validate_ensemble_size(K)
    if not 1 <= m <= K:
        raise ValueError(f"m must lie in [1, K] = [1, {K}], got {m!r}")
    positive("epsilon", epsilon)
    in_unit_interval("Delta", Delta, include_one=True)
    tau = float(K if tau is None else positive("tau", tau))
    lam = (
        composed_delta(K, Delta, composition)
        if majority_delta is None
        else in_unit_interval("majority_delta", majority_delta, include_one=True)
    )
    delta = composed_delta(m, Delta, composition) if delta is None else in_unit_interval("delta", delta)
    e_m, e_tau = np.exp(m * epsilon), np.exp(tau * epsilon)
    denominator = 2.0 * (e_tau - e_m + (1.0 + e_m) * lam) / (e_tau + 1.0) + e_m - 1.0
    value = (np.expm1(m * epsilon) + 2.0 * delta) / denominator
    return np.full(K + 1, float(np.clip(value, 0.0, 1.0)))


@shared_parameters(_PARAMETERS)
def gamma_majority(K: int) -> np.ndarray:
    """``γ ≡ 1``: the non-private majority of the K private votes (``⌈K/2⌉ε``-DP per the spec).

    Parameters
    ----------
    {K}
    """
    return np.ones(validate_ensemble_size(K) + 1)


def subsample_majority_probability_enumerated(K: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force check of Lemma 3.1 over all ``2^K`` vote vectors.

    For every ``S ∈ {0,1}^K`` the fraction of the ``C(K, m)`` subsets whose majority is 1 (ties: ½).

    Parameters
    ----------
    K : int
        Number of mechanisms, odd, ``K ≥ 1`` (``ValueError`` otherwise); cost ``2^K C(K, m)``.
    m : int
        Subset size, ``1 ≤ m ≤ K`` (``ValueError`` otherwise).

    Returns
    -------
    tuple of ndarray
        ``(L(S), probability)``, each of shape ``(2^K,)``.
    """
    K = validate_ensemble_size(K)
    if not 1 <= m <= K:
        raise ValueError(f"subset size m must satisfy 1 <= m <= K = {K}, got {m}")
    S = (np.arange(2**K)[:, None] >> np.arange(K)[None, :]) & 1
    subsets = np.array(list(combinations(range(K), m)))
    ones = S[:, subsets].sum(axis=2)
    wins = np.where(2 * ones > m, 1.0, np.where(2 * ones == m, 0.5, 0.0))
    return S.sum(axis=1), wins.mean(axis=1)


# --------------------------------------------------------------------------- private prediction (spec §3)


@shared_parameters(_PARAMETERS)
def subsample_majority(
    votes, m: int, rng: np.random.Generator, *, voter_epsilon: float, voter_delta: float = 0.0
) -> np.ndarray:
    """Majority of ``m`` of the ``K`` binary votes of each row, drawn without replacement (Lemma 3.1).

    Ties (even ``m``) are broken by a fair coin, as in γ_Sub. Privacy: a post-processing of ``m``
    ``(ε, Δ)``-DP mechanisms, so ``(mε, 1 − (1 − Δ)^m)``-DP (≤ ``(mε, mΔ)``) by composition; the
    ledger records it as DaRRM with γ_Sub (Lemma 3.1), read by the exact verifier.

    Parameters
    ----------
    votes : array_like of shape (n, K) or (K,)
        Binary votes in ``{0, 1}``; any ``K ≥ 1`` (odd not required; a ledger needs ``K`` odd).
    m : int
        Number of votes subsampled, ``1 ≤ m ≤ K`` (``ValueError`` otherwise).
    rng : numpy.random.Generator
        Source of the subsets and of the tie-breaking coins.
    {voter_epsilon, voter_delta}

    Returns
    -------
    ndarray of int64, shape (n,)
        The released bit of each row.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import subsample_majority
    >>> subsample_majority(np.array([[1, 1, 1, 1, 0]]), m=3, rng=np.random.default_rng(0), voter_epsilon=0.1).tolist()
    [1]
    """
    votes = np.atleast_2d(np.asarray(votes)).astype(np.int64)
    n, K = votes.shape
    if not 1 <= m <= K:
        raise ValueError(f"need 1 ≤ m ≤ K, got m={m}, K={K}")
    if active_ledger() is not None:  # γ_Sub is computed only for a ledger
        record_majority_vote("subsample_majority", gamma_subsampling(K, m), voter_epsilon, voter_delta, count=n)
    chosen = np.argsort(rng.random((n, K)), axis=1)[:, :m]
    ones = np.take_along_axis(votes, chosen, axis=1).sum(axis=1)
    coin = rng.random(n) < 0.5
    return np.where(2 * ones == m, coin, 2 * ones > m).astype(np.int64)
