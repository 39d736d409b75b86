"""Samplers of private selection: report-noisy-max, permute-and-flip and the intermediate algorithms.

Conventions of :mod:`dpreplication.mechanisms.selection` (Ding et al. 2021, §2; McKenna & Sheldon
2020): scores ``q ∈ R^k`` with sensitivity ``Δ`` (``|q(D) - q(D')|_∞ ≤ Δ`` for neighbours), budget
``ε``, ``q* = max_i q_i``, exponential *rate* ``λ = ε / (2Δ)`` and Gumbel / Laplace *scale*
``b = 2Δ / ε = 1/λ``. Every sampler returns ``n`` indices in ``0..k-1``, drawn from the output law
of one of the exact pmfs of :mod:`dpreplication.mechanisms.selection`, so it has the same guarantee.

Guarantees (all for arbitrary, not necessarily monotone, quality functions):

* report-noisy-max with exponential noise (RNM-Exp, Alg. 1) is ε-DP, and it is
  *identical in distribution* to permute-and-flip (Alg. 2) — the theorem of
  Ding et al. (Thm. 5). The intermediate algorithms A and B (Lemmas 2–4) have
  the same output distribution, so they are ε-DP too.
* report-noisy-max with Gumbel noise is the exponential mechanism, ε-DP and
  ε²/8-zCDP (bounded range).  Permute-and-flip is ε-DP but *not* ε-bounded-range.
* report-noisy-max with Laplace noise of scale ``2Δ/ε`` is ε-DP.

:func:`intermediate_objects` exposes the random sets and values inside Lemmas 2–4 on given draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms.selection import (
    SELECTION_PARAMETERS,
    Noise,
    flip_probabilities,
    noise_scale,
    validate_scores,
)
from dpreplication.numerics import row_chunks
from dpreplication.releases.recorder import record_report_noisy_max

_STANDARD_NOISE: dict[str, Callable] = {
    "exponential": lambda rng, shape: rng.standard_exponential(shape),
    "gumbel": lambda rng, shape: rng.gumbel(0.0, 1.0, shape),
    "laplace": lambda rng, shape: rng.laplace(0.0, 1.0, shape),
}

_SAMPLER_PARAMETERS = {
    **SELECTION_PARAMETERS,
    **parameter_entries(
        """
        n : int
            Number of draws, ``n ≥ 0``.
        rng : numpy.random.Generator
            Source of the randomness.
        """
    ),
    "indices": """
        Returns
        -------
        ndarray of int64, shape (n,)
            The selected indices in ``0..k-1``.
        """,
}
_DRAWS_PARAMETERS = parameter_entries(
    """
    scores : array_like of shape (k,)
        Quality scores ``q``.
    noise : ndarray of shape (n, k)
        Draws ``X ≥ 0`` of ``Expo(rate λ)``, ``λ = ε/(2Δ)``.
    fresh_noise : ndarray of shape (n, k)
        Independent draws ``Z`` of the same law.
    """
)


@shared_parameters(_SAMPLER_PARAMETERS)
def sample_report_noisy_max(
    scores, epsilon: float, sensitivity: float, n: int, rng: np.random.Generator, noise: Noise = "exponential"
) -> np.ndarray:
    """``n`` draws of ``argmax_i (q_i + b·N_i)``, ``N_i`` standard ``noise``, ``b = 2Δ/ε``.

    ``noise="exponential"`` is RNM-Exp (Algorithm 1, ε-DP, ≡ permute-and-flip);
    ``"gumbel"`` is the exponential mechanism (ε-DP, ε²/8-zCDP);
    ``"laplace"`` is RNM-Laplace (ε-DP). Vectorised in chunks of rows;
    computed as ``argmax(q/b + N)``, the same arg-max without a multiply.

    Parameters
    ----------
    {scores, epsilon, sensitivity, n, rng}
    noise : {"exponential", "gumbel", "laplace"}
        Distribution of the standard noise ``N_i``.

    Returns
    -------
    ndarray of int64, shape (n,)
        The selected indices in ``0..k-1``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import sample_report_noisy_max
    >>> draws = sample_report_noisy_max([3.0, 2.0, 0.0], 1.0, 1.0, n=100_000, rng=np.random.default_rng(0))
    >>> (np.bincount(draws, minlength=3) / draws.size).round(2).tolist()  # ≈ permute_and_flip_pmf
    [0.63, 0.28, 0.09]
    """
    q = validate_scores(scores, epsilon, sensitivity)
    draw, scale = _STANDARD_NOISE[noise], noise_scale(epsilon, sensitivity)
    record_report_noisy_max(f"report_noisy_max[{noise}]", noise, scale, sensitivity, n)
    shifted = q / scale
    out = np.empty(n, dtype=np.int64)
    for i0, i1 in row_chunks(n, q.size):
        values = draw(rng, (i1 - i0, q.size))
        values += shifted
        out[i0:i1] = values.argmax(axis=1)
    return out


@shared_parameters(_SAMPLER_PARAMETERS)
def sample_permute_and_flip_literal(
    scores, epsilon: float, sensitivity: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Permute-and-flip exactly as Algorithm 2: a random permutation, then one coin at a time.

    For ``r`` in a uniformly random order, return ``r`` with probability
    ``p_r = exp(ε (q_r - q*)/(2Δ))``; an arg-max has ``p_r = 1``, so it halts.
    Guarantee: ε-DP (McKenna & Sheldon 2020, Theorem 1). Deliberately a Python
    loop: it is the literal algorithm the equivalence chain starts from.

    Parameters
    ----------
    {scores, epsilon, sensitivity, n, rng}

    {indices}
    """
    p = flip_probabilities(scores, epsilon, sensitivity)
    record_report_noisy_max("permute_and_flip", "exponential", noise_scale(epsilon, sensitivity), sensitivity, n)
    out = np.empty(n, dtype=np.int64)
    for t in range(n):
        for r in rng.permutation(p.size):
            if rng.random() < p[r]:
                out[t] = r
                break
    return out


@shared_parameters(_SAMPLER_PARAMETERS)
def sample_permute_and_flip_batch(
    scores, epsilon: float, sensitivity: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Vectorised permute-and-flip: the first heads of a random order of coins ``H_r ~ Bern(p_r)``.

    Flip every coin at once and return the heads with the smallest uniform key, i.e. the first
    heads of a random order. This is the Lemma-2 rewrite, so it is not Alg. 2 itself.
    Guarantee: ε-DP (same distribution as Alg. 2).

    Parameters
    ----------
    {scores, epsilon, sensitivity, n, rng}

    {indices}

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import sample_permute_and_flip_batch
    >>> draws = sample_permute_and_flip_batch([3.0, 2.0, 0.0], 1.0, 1.0, n=100_000, rng=np.random.default_rng(0))
    >>> (np.bincount(draws, minlength=3) / draws.size).round(2).tolist()
    [0.63, 0.28, 0.09]
    """
    p = flip_probabilities(scores, epsilon, sensitivity)
    record_report_noisy_max("permute_and_flip", "exponential", noise_scale(epsilon, sensitivity), sensitivity, n)
    out = np.empty(n, dtype=np.int64)
    for i0, i1 in row_chunks(n, p.size):
        shape = (i1 - i0, p.size)
        heads = rng.random(shape) < p
        keys = np.where(heads, rng.random(shape), 2.0)
        out[i0:i1] = keys.argmin(axis=1)
    return out


@shared_parameters(_DRAWS_PARAMETERS)
def intermediate_a_from_noise(scores, noise: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Algorithm A (Lemma 2) on given draws: ``v = q + X``, ``S = {i : v_i ≥ q*}``.

    Return the member of ``S`` with the largest uniform key (a uniform element).
    ``noise`` holds ``X ~ Expo(rate λ)`` draws, ``keys`` i.i.d. uniforms; both ``(n, k)``.
    With these draws Algorithm A has the law of permute-and-flip: ε-DP (Lemma 2).

    Parameters
    ----------
    {scores, noise}
    keys : ndarray of shape (n, k)
        I.i.d. ``U[0, 1)`` keys.

    Returns
    -------
    ndarray of shape (n,)
        Algorithm A's output index per row.
    """
    q = np.asarray(scores, dtype=float)
    in_set = q + noise >= q.max()
    return np.where(in_set, keys, -1.0).argmax(axis=1)


@shared_parameters(_DRAWS_PARAMETERS)
def intermediate_b_from_noise(scores, noise: np.ndarray, fresh_noise: np.ndarray) -> np.ndarray:
    """Algorithm B (Lemmas 3–4, reconstructed in spec §2) on given draws.

    ``v = q + X``; cap ``v⊤ = min(v, q*)``; ``S' = {i : v⊤_i = q*}``; return
    ``argmax_{i ∈ S'} (v⊤_i + Z_i)`` with fresh ``Z ~ Expo(rate λ)`` in ``fresh_noise``.
    With these draws Algorithm B has the law of permute-and-flip: ε-DP (Lemmas 3–4).

    Parameters
    ----------
    {scores, noise, fresh_noise}

    Returns
    -------
    ndarray of shape (n,)
        Algorithm B's output index per row.
    """
    q = np.asarray(scores, dtype=float)
    top = q.max()
    capped = np.minimum(q + noise, top)
    in_set = capped == top
    return np.where(in_set, capped + fresh_noise, -np.inf).argmax(axis=1)


@dataclass(frozen=True)
class IntermediateObjects:
    """The random sets and values inside Lemmas 2–4 on given draws (rows: draws, columns: items).

    ``in_s``: ``S = {i : q_i + X_i ≥ q*}`` (Lemma 2, Algorithm A); ``in_s_prime``:
    ``S' = {i : min(q_i + X_i, q*) = q*}`` (Lemma 3, Algorithm B; equal to S on every draw);
    ``v_dagger``: ``v†_i = q* + Z_i`` on S' and ``q_i + X_i`` off it (Lemma 4: ``v†_i − q_i ~ Expo(λ)``
    independently); ``choice``: Algorithm B's output, which is ``argmax v†``.

    Parameters
    ----------
    in_s : ndarray of bool, shape (n, k)
        Membership in ``S``.
    in_s_prime : ndarray of bool, shape (n, k)
        Membership in ``S'``.
    v_dagger : ndarray of shape (n, k)
        ``v†``.
    choice : ndarray of int, shape (n,)
        Algorithm B's output.
    """

    in_s: np.ndarray
    in_s_prime: np.ndarray
    v_dagger: np.ndarray
    choice: np.ndarray


@shared_parameters(_DRAWS_PARAMETERS)
def intermediate_objects(scores, noise: np.ndarray, fresh_noise: np.ndarray) -> IntermediateObjects:
    """Compute the objects of Lemmas 2–4 on draws ``X`` (``noise``) and fresh ``Z`` (``fresh_noise``).

    Both are ``(n, k)`` arrays of ``Expo(rate λ)`` draws.

    Parameters
    ----------
    {scores, noise, fresh_noise}
    """
    q = np.asarray(scores, dtype=float)
    top = q.max()
    capped = np.minimum(q + noise, top)
    in_s_prime = capped == top
    return IntermediateObjects(
        in_s=q + noise >= top,
        in_s_prime=in_s_prime,
        v_dagger=np.where(in_s_prime, top + fresh_noise, q + noise),
        choice=intermediate_b_from_noise(q, noise, fresh_noise),
    )


def _sample_from_noise(algorithm, scores, epsilon, sensitivity, n, rng, second) -> np.ndarray:
    q = validate_scores(scores, epsilon, sensitivity)
    b = noise_scale(epsilon, sensitivity)
    record_report_noisy_max(algorithm.__name__.removesuffix("_from_noise"), "exponential", b, sensitivity, n)
    out = np.empty(n, dtype=np.int64)
    for i0, i1 in row_chunks(n, q.size):
        shape = (i1 - i0, q.size)
        out[i0:i1] = algorithm(q, b * rng.standard_exponential(shape), second(rng, shape, b))
    return out


@shared_parameters(_SAMPLER_PARAMETERS)
def sample_intermediate_a(scores, epsilon: float, sensitivity: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of Algorithm A (uniform element of ``{i : q_i + X_i ≥ q*}``). ε-DP.

    Its output has the law of permute-and-flip (Lemma 2).

    Parameters
    ----------
    {scores, epsilon, sensitivity, n, rng}

    {indices}
    """
    return _sample_from_noise(
        intermediate_a_from_noise, scores, epsilon, sensitivity, n, rng, lambda rng, shape, b: rng.random(shape)
    )


@shared_parameters(_SAMPLER_PARAMETERS)
def sample_intermediate_b(scores, epsilon: float, sensitivity: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of Algorithm B (capped noisy scores, fresh exponential tie-break). ε-DP.

    Its output has the law of permute-and-flip (Lemmas 3–4).

    Parameters
    ----------
    {scores, epsilon, sensitivity, n, rng}

    {indices}
    """
    return _sample_from_noise(
        intermediate_b_from_noise,
        scores,
        epsilon,
        sensitivity,
        n,
        rng,
        lambda rng, shape, b: b * rng.standard_exponential(shape),
    )


SAMPLERS: dict[str, Callable] = {
    "A1 RNM-Exp": lambda q, e, d, n, rng: sample_report_noisy_max(q, e, d, n, rng, "exponential"),
    "A2 P&F literal": sample_permute_and_flip_literal,
    "A2 P&F batch": sample_permute_and_flip_batch,
    "A3 Intermediate A": sample_intermediate_a,
    "A4 Intermediate B": sample_intermediate_b,
    "G RNM-Gumbel (EM)": lambda q, e, d, n, rng: sample_report_noisy_max(q, e, d, n, rng, "gumbel"),
    "L RNM-Laplace": lambda q, e, d, n, rng: sample_report_noisy_max(q, e, d, n, rng, "laplace"),
}
"""Every sampler under the label used in figures and tables: ``f(q, ε, Δ, n, rng)``."""
