"""Private selection: exponential mechanism, report-noisy-max, permute-and-flip (exact pmfs).

Conventions (Ding et al. 2021, §2; McKenna & Sheldon 2020): scores ``q ∈ R^k``
with sensitivity ``Δ`` (``|q(D) - q(D')|_∞ ≤ Δ`` for neighbours), budget ``ε``,
``q* = max_i q_i``, exponential *rate* ``λ = ε / (2Δ)`` and Gumbel / Laplace
*scale* ``b = 2Δ / ε = 1/λ``. Every mechanism returns an index in ``0..k-1``;
this module gives its exact output distribution (the samplers are in
:mod:`dpreplication.mechanisms.selection_sampling`).

Guarantees (all for arbitrary, not necessarily monotone, quality functions):

* report-noisy-max with exponential noise (RNM-Exp, Alg. 1) is ε-DP, and it is
  *identical in distribution* to permute-and-flip (Alg. 2) — the theorem of
  Ding et al. (Thm. 5). The intermediate algorithms A and B (Lemmas 2–4) have
  the same output distribution.
* report-noisy-max with Gumbel noise is the exponential mechanism, ε-DP and
  ε²/8-zCDP (bounded range).  Permute-and-flip is ε-DP but *not* ε-bounded-range.
* report-noisy-max with Laplace noise of scale ``2Δ/ε`` is ε-DP.

Exact output distributions are evaluated without cancellation: a Gauss–Legendre
rule that is exact for the polynomial integrand of Eq. (★) for P&F, softmax via
log-sum-exp for the exponential mechanism, and a piecewise log-space quadrature
of the RNM-Laplace integral. At extreme finite ε (the noise scale ``b`` near the scores'
rounding) the last two switch to the scaled gaps ``(q − q*)/b``, so every pmf still sums to 1
and concentrates on the arg-max set as ε → ∞.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from scipy import integrate, optimize, special

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.numerics import gauss_legendre_interval, gauss_legendre_unit, row_chunks
from dpreplication.validation import non_negative, positive

Noise = Literal["exponential", "gumbel", "laplace"]

SELECTION_PARAMETERS = parameter_entries(
    """
    scores : array_like of shape (k,)
        Finite quality scores ``q``, ``k ≥ 1`` (``ValueError`` otherwise).
    epsilon : float
        Privacy budget, ε > 0 and finite (``ValueError`` otherwise).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the scores: ``|q(D) - q(D')|_∞ ≤ Δ``.
    """
)
"""The numpydoc entries of ``scores``, ``epsilon`` and ``sensitivity``, which every selection mechanism takes."""

_PMF = {
    "pmf": """
    Returns
    -------
    ndarray of shape (k,)
        ``P(r)``, summing to 1.
    """
}


@shared_parameters(SELECTION_PARAMETERS)
def validate_scores(scores, epsilon: float, sensitivity: float) -> np.ndarray:
    """Return ``scores`` as a finite 1-D float array; reject bad ``ε`` or ``Δ``.

    Parameters
    ----------
    {scores, epsilon, sensitivity}

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    q = np.asarray(scores, dtype=float)
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ValueError("scores must be finite")
    positive("epsilon", epsilon)
    positive("sensitivity", sensitivity)
    return q


def noise_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    """``b = 2Δ/ε``: the scale of the Gumbel, Laplace and exponential noise (rate ``1/b``).

    Parameters
    ----------
    epsilon : float
        Privacy budget, ε > 0 (not checked here).
    sensitivity : float
        Sensitivity Δ > 0 (not checked here).
    """
    return 2.0 * sensitivity / epsilon


@shared_parameters(SELECTION_PARAMETERS)
def flip_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Permute-and-flip coin probabilities ``p_i = exp(ε (q_i - q*) / (2Δ))`` (Alg. 2).

    Parameters
    ----------
    {scores, epsilon, sensitivity}

    Returns
    -------
    ndarray of shape (k,)
        ``p_i ∈ (0, 1]``; 1 at every arg-max.
    """
    q = validate_scores(scores, epsilon, sensitivity)
    with np.errstate(over="ignore"):  # a gap over ~1e308 b (ε near the float limit) gives the coin 0
        return np.exp((q - q.max()) / noise_scale(epsilon, sensitivity))


def expected_error(pmf, scores) -> float:
    """Return the expected sub-optimality ``E[q* - q_M] = q* - Σ_r P(r) q_r`` of a selection pmf.

    Parameters
    ----------
    pmf : array_like of shape (k,)
        Output distribution ``P`` of the mechanism (non-negative, summing to 1).
    scores : array_like of shape (k,)
        Quality scores ``q``.
    """
    q = np.asarray(scores, dtype=float)
    return float(q.max() - np.dot(pmf, q))


# --------------------------------------------------------------------------- extreme ε

EM_RESOLUTION_LIMIT = 2.0**-16
"""Largest rounding of the scores in units of ``b`` (:func:`_resolution`) at which
:func:`exponential_mechanism_pmf` keeps the softmax of ``q/b``, whose relative error is about
twice that rounding; beyond it (ε → ∞: ``q/b`` overflows to NaN at ε = 1e308) the softmax of the
gaps. The figures reach 2e-6 (DPBench medians at the ε = 1e3 end of
:func:`epsilon_for_expected_error`'s bracket), so they keep the raw form bit for bit."""

LAPLACE_RESOLUTION_LIMIT = 2.0**-24
"""Largest rounding of the scores in units of ``b`` at which :func:`report_noisy_max_laplace_pmf`
integrates on the raw scores. That form's error is about ``3e-3`` times the rounding: 1e-12 up to
a rounding of 3e-10, 2e-10 at this limit; beyond it the error grows (the sum is off by 5e-6 at
ε = 1e13 for ``q ~ 3``, by ½ at ε = 1e100) and the scaled gaps are integrated instead. The figures
reach 3e-12, so they keep the raw form bit for bit."""


def _resolution(q: np.ndarray, b: float) -> float:
    """Float spacing of the largest ``|q|`` in units of the noise scale ``b`` (``inf`` if ``b`` underflows)."""
    with np.errstate(divide="ignore"):
        return float(np.spacing(np.abs(q).max()) / b)


def _scaled_gaps(q: np.ndarray, b: float) -> np.ndarray:
    """``(q − q*)/b ≤ 0``: exactly 0 at every arg-max, ``-inf`` where the quotient overflows."""
    gaps = q - q.max()
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return np.where(gaps == 0, 0.0, gaps / b)


# --------------------------------------------------------------------------- exact pmfs


@shared_parameters(SELECTION_PARAMETERS, _PMF)
def exponential_mechanism_pmf(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Exponential mechanism ``P(r) ∝ exp(ε q_r / (2Δ))`` (= RNM with Gumbel noise).

    Guarantee: ε-DP and ε²/8-zCDP. Evaluated as a softmax (log-sum-exp) of ``q/b``; when ε is so
    large that the rounding of ``q/b`` exceeds :data:`EM_RESOLUTION_LIMIT` (``q/b`` may overflow,
    e.g. tied scores at ε = 1e308), as a softmax of the gaps ``(q − q*)/b`` instead, which stays a
    pmf summing to 1 and tends to the uniform law on the arg-max set as ε → ∞.

    Parameters
    ----------
    {scores, epsilon, sensitivity}

    {pmf}

    Examples
    --------
    >>> from dpreplication.mechanisms import exponential_mechanism_pmf
    >>> exponential_mechanism_pmf([3.0, 2.0, 0.0], epsilon=1.0).round(4).tolist()
    [0.5465, 0.3315, 0.122]
    """
    q = validate_scores(scores, epsilon, sensitivity)
    b = noise_scale(epsilon, sensitivity)
    if _resolution(q, b) > EM_RESOLUTION_LIMIT:
        return special.softmax(_scaled_gaps(q, b))
    return special.softmax(q / noise_scale(epsilon, sensitivity))


@shared_parameters(SELECTION_PARAMETERS, _PMF)
def permute_and_flip_pmf(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Exact pmf of permute-and-flip, equivalently of RNM with exponential noise.

    ``P(r) = p_r ∫_0^1 Π_{j≠r} (1 - p_j u) du`` (spec Eq. ★), with the coin
    probabilities ``p_j`` of :func:`flip_probabilities`. The integrand is a
    polynomial of degree ``k - 1`` in ``u``, so a Gauss–Legendre rule with
    ``⌊k/2⌋ + 2`` nodes is exact; every term is positive, so unlike the
    alternating elementary-symmetric sum there is no cancellation.
    Guarantee of the mechanism: ε-DP (tight: some neighbours attain ε).
    Cost ``O(k²)``; about 10 ms at k = 1024.

    Parameters
    ----------
    {scores, epsilon, sensitivity}

    {pmf}

    Examples
    --------
    >>> from dpreplication.mechanisms import permute_and_flip_pmf
    >>> permute_and_flip_pmf([3.0, 2.0, 0.0], epsilon=1.0).round(4).tolist()
    [0.6303, 0.2807, 0.089]
    """
    p = flip_probabilities(scores, epsilon, sensitivity)
    return _flip_integral(p)


SERIES_THRESHOLD = 0.5
"""Coins with ``p ≤`` this enter :func:`_flip_integral` through power series in ``p u``."""
SERIES_TERMS = 64
"""Terms kept of those series: the first one dropped is at most ``2^-65`` relative per coin."""


def _flip_integral(p: np.ndarray) -> np.ndarray:
    """``p_r ∫_0^1 Π_{j≠r}(1 - p_j u) du`` for every ``r``, by exact Gauss–Legendre.

    With ``T(u) = Π_j (1 - p_j u)`` the integrand is ``T(u) / (1 - p_r u)``. Coins with
    ``p > ½`` (the candidates near the top) are evaluated directly, one distinct value at a
    time and in chunks of nodes, so memory stays ``O(k)``; for the others both
    ``log(1 - p u) = −Σ_n (p u)^n / n`` and ``1 / (1 − p u) = Σ_n (p u)^n`` converge at least
    like ``2^-n``, so they cost ``O(k + nodes)`` per term instead of ``O(k · nodes)``. Every
    term is positive: no cancellation. Cost ``O(nodes · k_top + 64 (k + nodes))`` with ``k_top``
    the number of distinct ``p > ½``.
    """
    u, w = gauss_legendre_unit(p.size // 2 + 2)
    top = p > SERIES_THRESHOLD
    top_values, top_inverse, top_counts = np.unique(p[top], return_inverse=True, return_counts=True)
    powers = np.arange(1, SERIES_TERMS + 1)
    u_powers = u[:, None] ** powers
    log_total = -u_powers @ ((p[~top, None] ** powers).sum(axis=0) / powers)
    for start, stop in row_chunks(u.size, top_values.size):
        log_total[start:stop] += np.log1p(-np.outer(u[start:stop], top_values)) @ top_counts
    weighted = w * np.exp(log_total)
    integral = np.empty_like(p)
    top_integral = np.zeros(top_values.size)
    for start, stop in row_chunks(u.size, top_values.size):
        top_integral += weighted[start:stop] @ (1.0 / (1.0 - np.outer(u[start:stop], top_values)))
    integral[top] = top_integral[top_inverse]
    moments = np.concatenate([[weighted.sum()], weighted @ u_powers])
    integral[~top] = (p[~top, None] ** np.arange(SERIES_TERMS + 1)) @ moments
    return p * integral


@shared_parameters(SELECTION_PARAMETERS)
def report_noisy_max_laplace_pmf(
    scores,
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    window: float = 100.0,
    max_piece: float = 0.5,
    nodes_per_piece: int = 20,
    negligible: float = 60.0,
) -> np.ndarray:
    """Exact (to ~1e-12) pmf of report-noisy-max with Laplace noise of scale ``b = 2Δ/ε``.

    ``P(r) = ∫ f(x - q_r) Π_{j≠r} F(x - q_j) dx`` with the Laplace density ``f``
    and CDF ``F`` (spec §3.3), split in three regions:

    * ``x ≥ q*``: with ``t = e^{-(x - q*)/b}`` the integral is
      ``½ c_r ∫_0^1 Π_{j≠r}(1 - ½ c_j t) dt``, ``c_j = e^{(q_j - q*)/b}`` — a
      polynomial, integrated exactly as for permute-and-flip;
    * ``[max(min q, q* - window·b), q*]``: log-space Gauss–Legendre on pieces
      between consecutive distinct scores, none longer than ``max_piece·b``;
    * ``x < min q``: closed form ``2^{-k}/k · exp((k·min q - Σq)/b)`` for every
      item (below ``q* - window·b`` the mass is < ``e^{-window}`` and dropped).

    Items with ``q_r < q* - negligible·b`` (probability < ``e^{-negligible}``) get 0.
    When ε is so large that the scores' rounding exceeds :data:`LAPLACE_RESOLUTION_LIMIT` of ``b``
    (the quadrature nodes near ``q*`` no longer resolve ``b``), the same integral is evaluated on
    the scaled gaps ``(q − q*)/b`` with ``b = 1`` (the pmf is invariant under that change of
    variables): the pmf still sums to 1 and tends to the uniform law on the arg-max set as ε → ∞.
    Guarantee of the mechanism: ε-DP.

    Parameters
    ----------
    {scores, epsilon, sensitivity}
    window : float
        Width, in units of ``b``, below ``q*`` integrated numerically, ``window > 0``.
    max_piece : float
        Longest quadrature piece, in units of ``b``, ``max_piece > 0``.
    nodes_per_piece : int
        Gauss–Legendre nodes per piece, ``nodes_per_piece ≥ 1``.
    negligible : float
        Items more than ``negligible·b`` below ``q*`` get probability 0, ``negligible > 0``.

    Returns
    -------
    ndarray of shape (k,)
        ``P(r)``.

    Examples
    --------
    >>> from dpreplication.mechanisms import report_noisy_max_laplace_pmf
    >>> report_noisy_max_laplace_pmf([3.0, 2.0, 0.0], epsilon=1.0).round(4).tolist()
    [0.5573, 0.3324, 0.1104]
    """
    q = validate_scores(scores, epsilon, sensitivity)
    b = noise_scale(epsilon, sensitivity)
    if _resolution(q, b) > LAPLACE_RESOLUTION_LIMIT:
        q, b = _scaled_gaps(q, b), 1.0
    return _noisy_max_laplace_integral(q, b, window, max_piece, nodes_per_piece, negligible)


def _noisy_max_laplace_integral(q, b, window, max_piece, nodes_per_piece, negligible) -> np.ndarray:
    """Sum the three regions of :func:`report_noisy_max_laplace_pmf` for scores ``q`` and scale ``b``.

    ``q`` may hold ``-inf`` below its maximum (items whose scaled gap overflowed): they get 0.
    """
    k, top = q.size, q.max()

    pmf = _flip_integral(0.5 * np.exp((q - top) / b))

    lo = max(q.min(), top - window * b)
    if lo < top:
        breaks = np.unique(np.concatenate(([lo, top], q[(q > lo) & (q < top)])))
        pieces = np.maximum(1, np.ceil(np.diff(breaks) / (max_piece * b)).astype(int))
        starts = np.concatenate([a + (c - a) * np.arange(m) / m for a, c, m in zip(breaks[:-1], breaks[1:], pieces)])
        stops = np.concatenate(
            [a + (c - a) * np.arange(1, m + 1) / m for a, c, m in zip(breaks[:-1], breaks[1:], pieces)]
        )
        x, wx = gauss_legendre_interval(starts, stops, nodes_per_piece)
        active = np.flatnonzero(q >= top - negligible * b)
        middle = np.zeros(active.size)
        for i0, i1 in row_chunks(x.size, k):
            z = (x[i0:i1, None] - q[None, :]) / b
            log_cdf = np.where(z < 0, np.log(0.5) + np.minimum(z, 0), np.log1p(-0.5 * np.exp(-np.abs(z))))
            log_density = -np.log(2 * b) - np.abs(z[:, active])
            log_rest = log_cdf.sum(axis=1, keepdims=True) - log_cdf[:, active]
            middle += wx[i0:i1] @ np.exp(log_density + log_rest)
        pmf[active] += middle
        inactive = np.setdiff1d(np.arange(k), active)
        pmf[inactive] = 0.0
    if lo == q.min():
        pmf += np.exp(-k * np.log(2.0) - np.log(k) + (k * q.min() - q.sum()) / b)
    return pmf


@shared_parameters(SELECTION_PARAMETERS)
def report_noisy_max_pmf_quad(scores, epsilon: float, sensitivity: float = 1.0, noise: Noise = "laplace") -> np.ndarray:
    """Evaluate ``P(r) = ∫ f_r(x) Π_{j≠r} F_j(x) dx`` by adaptive quadrature (reference evaluator).

    Slow (one ``scipy.integrate.quad`` per item) but independent of the fast
    evaluators; used to validate them. ``noise`` is "laplace" or "exponential".
    Both mechanisms are ε-DP (spec §3.3; RNM-Exp ≡ permute-and-flip).

    Parameters
    ----------
    {scores, epsilon, sensitivity}
    noise : {"laplace", "exponential"}
        Noise of report-noisy-max, scale ``b = 2Δ/ε`` (``ValueError`` otherwise).

    Returns
    -------
    ndarray of shape (k,)
        ``P(r)``.
    """
    q = validate_scores(scores, epsilon, sensitivity)
    b = noise_scale(epsilon, sensitivity)
    points = np.unique(q)
    if noise == "laplace":

        def density(z):
            return np.exp(-np.abs(z) / b) / (2 * b)

        def cdf(z):
            return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.abs(z) / b))

        lo, hi = q.min() - 50 * b, q.max() + 50 * b
    elif noise == "exponential":

        def density(z):
            return np.where(z >= 0, np.exp(-np.maximum(z, 0) / b) / b, 0.0)

        def cdf(z):
            return np.where(z >= 0, -np.expm1(-np.maximum(z, 0) / b), 0.0)

        lo, hi = q.max(), q.max() + 80 * b
        points = points[points >= lo]
    else:
        raise ValueError(f"noise must be 'laplace' or 'exponential', got {noise!r}")

    def integrand(x, r):
        z = x - q
        cdfs = cdf(z)
        cdfs[r] = 1.0
        return density(z[r]) * np.prod(cdfs)

    inner = [p for p in points if lo < p < hi]
    return np.array(
        [
            integrate.quad(integrand, lo, hi, args=(r,), points=inner or None, limit=500, epsabs=1e-15, epsrel=1e-13)[0]
            for r in range(q.size)
        ]
    )


EXACT_PMFS: dict[str, Callable] = {
    "P&F = RNM-Exp": permute_and_flip_pmf,
    "EM = RNM-Gumbel": exponential_mechanism_pmf,
    "RNM-Laplace": report_noisy_max_laplace_pmf,
}
"""Exact output distributions under their figure labels: ``f(q, ε, Δ)``."""


def epsilon_for_expected_error(scores, target: float, pmf_of: Callable = exponential_mechanism_pmf) -> float:
    """Return the ε at which a mechanism's exact expected error ``q* − E q_R`` equals ``target`` (Δ = 1).

    Brent's method on ``log ε ∈ [log 1e-9, log 1e3]`` (the error decreases in ε).

    Parameters
    ----------
    scores : array_like of shape (k,)
        Finite quality scores ``q``, not all equal.
    target : float
        Expected error to reach, strictly between the errors at ε = 1e3 and ε = 1e-9 (about
        ``q* − mean(q)``, the uniform choice); ``ValueError`` otherwise.
    pmf_of : callable
        ``pmf_of(q, ε)`` → output pmf at Δ = 1, e.g. :func:`exponential_mechanism_pmf`.
    """
    q = np.asarray(scores, dtype=float)

    def gap(log_epsilon):
        return expected_error(pmf_of(q, np.exp(log_epsilon)), q) - target

    return float(np.exp(optimize.brentq(gap, np.log(1e-9), np.log(1e3), xtol=1e-13, rtol=1e-14)))


_WORST_CASE_PARAMETERS = parameter_entries(
    """
    n : int
        Number of items, ``n ≥ 1``.
    gap : float
        ``c ≥ 0``.
    epsilon : float
        Privacy budget, ε ≥ 0 and finite (``ValueError`` otherwise).
    """
)


def _worst_case_coin(gap: float, epsilon: float) -> float:
    """``p = e^{−εc/2}`` of McKenna & Sheldon's worst case (spec §3.2); ``ValueError`` if ε < 0."""
    non_negative("epsilon", epsilon)
    return np.exp(-epsilon * gap / 2)


@shared_parameters(_WORST_CASE_PARAMETERS)
def permute_and_flip_worst_case_error(n: int, gap: float, epsilon: float) -> float:
    """P&F's expected error on McKenna & Sheldon's worst case (spec §3.2).

    One item at ``q*`` and ``n − 1`` items ``c`` below (Δ = 1):
    ``c (1 − (1 − (1 − p)^n)/(n p))``, ``p = e^{−εc/2}``.

    Parameters
    ----------
    {n, gap, epsilon}
    """
    p = _worst_case_coin(gap, epsilon)
    return gap * (1 - (1 - (1 - p) ** n) / (n * p))


@shared_parameters(_WORST_CASE_PARAMETERS)
def exponential_mechanism_worst_case_error(n: int, gap: float, epsilon: float) -> float:
    """Return the exponential mechanism's expected error on the same family: ``c (n − 1) p / (1 + (n − 1) p)``.

    The worst case of :func:`permute_and_flip_worst_case_error` (spec §3.2), ``p = e^{−εc/2}``.

    Parameters
    ----------
    {n, gap, epsilon}
    """
    p = _worst_case_coin(gap, epsilon)
    return gap * (n - 1) * p / (1 + (n - 1) * p)
