"""Additive-noise mechanisms for a real-valued query: release ``q(D) + X``.

Conventions (truncated-Laplacian spec §1–§3, §7): sensitivity
``Δ = sup |q(D) - q(D')|`` over neighbours, budget ``(ε, δ)``. By the spec's
Lemma 1 a noise law ``P`` with density ``f`` is (ε, δ)-DP iff the hockey-stick
divergence ``H_ε(d) = ∫ (f(x) - e^ε f(x + d))_+ dx ≤ δ`` for every ``|d| ≤ Δ``.

Mechanisms here, each with its guarantee in its docstring:

* the analytic Gaussian of Balle & Wang (2018, Thm 8), calibrated by a
  vectorised log-space bisection (spec §7, "robust production solver");
* the classic Gaussian ``σ = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth, ε < 1) and
  the ε-DP Laplace mechanism ``Laplace(Δ/ε)``.

The truncated Laplacian of Geng, Ding, Guo & Kumar (Def. 3) is in
:mod:`dpreplication.mechanisms.truncated_laplace`. Arguments are checked by the shared
validators of :mod:`dpreplication.validation`.

Everything is vectorised over ``ε`` and ``δ`` (numpy broadcasting) and
evaluated in log space or with ``expm1``/``log1p`` so that the formulas stay
accurate for ``δ`` down to ``1e-300`` and ``ε`` from ``1e-8`` up to ``100``.
Functions given only scalars return numpy scalars (``np.float64``).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.numerics import log1mexp
from dpreplication.releases.recorder import record_laplace
from dpreplication.validation import RAISES, finite_array, positive, positive_array, privacy_parameters

_PARAMETERS = parameter_entries(
    """
    epsilon_prime : float or array_like
        ``ε'``, real and finite (``ε' ≥ 0`` in DP use).
    sigma : float or array_like
        Noise standard deviation σ > 0 (finite).
    epsilon : float or array_like
        Privacy budget, ε > 0 (finite).
    delta : float or array_like
        Privacy parameter, 0 < δ < 1.
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    x : float or array_like
        Points at which to evaluate, any real.
    """
)

_MOMENT_SIGMA = parameter_entries(
    """
    sigma : float or array_like
        Standard deviation σ ≥ 0.
    """
)

# --------------------------------------------------------------------------- privacy profiles


@shared_parameters(_PARAMETERS)
def log_gaussian_hockey_stick(epsilon_prime, shift, sigma) -> np.ndarray:
    """``ln H_{ε'}(d)`` for ``N(0, σ²)`` noise (Balle & Wang 2018, Thm 8), in log space.

    ``H = Φ(a) - e^{ε'} Φ(b)``, ``a = |d|/(2σ) - ε'σ/|d|``, ``b = -|d|/(2σ) - ε'σ/|d|``;
    evaluated as ``ln Φ(a) + ln(1 - e^{ε' + ln Φ(b) - ln Φ(a)})`` (spec §7).
    Returns ``-inf`` where rounding makes the exponent ≥ 0 (δ below float
    resolution of ``Φ(a)``). ``shift`` must be non-zero.

    Parameters
    ----------
    {epsilon_prime}
    shift : float or array_like
        Shift ``d ≠ 0`` (finite) between neighbouring query answers; only ``|d|`` enters.
    {sigma}

    Returns
    -------
    float or ndarray
        ``ln H_{ε'}(d)``; at ``d = Δ`` this is the ``ln δ`` for which ``N(0, σ²)`` noise is
        ``(ε', δ)``-DP (Theorem 8).
    """
    eps_prime = finite_array("epsilon_prime", epsilon_prime)
    d = positive_array("|shift|", np.abs(np.asarray(shift, dtype=float)))
    sig = positive_array("sigma", sigma)
    half = d / (2.0 * sig)
    drift = eps_prime * sig / d
    log_phi_a = special.log_ndtr(half - drift)
    exponent = eps_prime + special.log_ndtr(-half - drift) - log_phi_a
    safe = exponent < 0
    return np.where(safe, log_phi_a + log1mexp(np.where(safe, exponent, -1.0)), -np.inf)[()]


@shared_parameters(_PARAMETERS)
def gaussian_privacy_profile(epsilon_prime, sigma, sensitivity: float = 1.0) -> np.ndarray:
    """``δ(ε') = Φ(Δ/(2σ) - ε'σ/Δ) - e^{ε'} Φ(-Δ/(2σ) - ε'σ/Δ)``: the exact privacy profile of ``N(0, σ²)``.

    ``N(0, σ²)`` noise on a query of L2 sensitivity Δ is ``(ε', δ(ε'))``-DP for every ``ε' ≥ 0``
    (Balle & Wang 2018, Theorem 8).

    Parameters
    ----------
    {epsilon_prime, sigma, sensitivity}
    """
    return np.exp(log_gaussian_hockey_stick(epsilon_prime, positive("sensitivity", sensitivity), sigma))[()]


@shared_parameters(_PARAMETERS)
def laplace_privacy_profile(epsilon_prime, epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """``δ(ε') = max(0, 1 - e^{(ε' - ε)/2})`` of ``Laplace(Δ/ε)`` at shift Δ (ε-DP: ``δ(ε) = 0``).

    Parameters
    ----------
    {epsilon_prime}
    epsilon : float or array_like
        Budget of the Laplace mechanism, ε > 0 (finite; ``ValueError`` otherwise).
    sensitivity : float
        Sensitivity Δ > 0 (finite; ``ValueError`` otherwise); the profile does not depend on it.
    """
    positive("sensitivity", sensitivity)
    eps = positive_array("epsilon", epsilon)
    eps_prime = finite_array("epsilon_prime", epsilon_prime)
    return np.maximum(0.0, -np.expm1(np.minimum(eps_prime - eps, 0.0) / 2.0))[()]


# --------------------------------------------------------------------------- Gaussian calibrations


@shared_parameters(_PARAMETERS, RAISES)
def analytic_gaussian_sigma(epsilon, delta, sensitivity: float = 1.0, iterations: int = 64) -> np.ndarray:
    """Smallest σ with ``N(0, σ²)`` (ε, δ)-DP: the analytic Gaussian (Balle & Wang 2018, Thm 8; spec §7).

    Solves ``ln δ_G(σ) = ln δ`` (``δ_G`` = :func:`log_gaussian_hockey_stick`
    at ``ε' = ε``, ``d = Δ``; strictly decreasing in σ) by bisection on
    ``ln(σ/Δ) ∈ [-40, 40]``, vectorised over broadcast ``ε``, ``δ`` arrays:
    64 halvings reach float resolution. Valid for ``ε > 0``, ``0 < δ < 1``.
    ``N(0, σ²)`` noise with this σ is (ε, δ)-DP (Theorem 8).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    {delta, sensitivity}
    iterations : int
        Number of bisection halvings, ``iterations ≥ 0``; 64 reach float resolution.

    Returns
    -------
    float or ndarray
        σ, a numpy scalar for scalar input.

    {raises_privacy_out_of_range}

    Examples
    --------
    >>> from dpreplication.mechanisms import analytic_gaussian_sigma, classic_gaussian_sigma
    >>> round(float(analytic_gaussian_sigma(1.0, 1e-6)), 4), round(float(classic_gaussian_sigma(1.0, 1e-6)), 4)
    (4.2247, 5.2988)
    """
    eps, dlt = privacy_parameters(epsilon, delta, delta_max=1.0)
    sens = positive("sensitivity", sensitivity)
    target = np.log(dlt)
    lo = np.full(eps.shape, -40.0)
    hi = np.full(eps.shape, 40.0)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        too_private = log_gaussian_hockey_stick(eps, 1.0, np.exp(mid)) <= target
        hi = np.where(too_private, mid, hi)
        lo = np.where(too_private, lo, mid)
    return (sens * np.exp(0.5 * (lo + hi)))[()]


@shared_parameters(_PARAMETERS)
def analytic_gaussian_sigma_algorithm1(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Balle & Wang's Algorithm 1 for one ``(ε, δ)`` — a scalar reference for the vectorised solver.

    ``δ₀ = Φ(0) - e^ε Φ(-√(2ε))``. If ``δ ≥ δ₀``: ``v* = sup{v ≥ 0: B⁺(v) ≤ δ}``,
    ``B⁺(v) = Φ(√(εv)) - e^ε Φ(-√(ε(v+2)))``, ``α = √(1 + v*/2) - √(v*/2)``;
    else ``u* = inf{u ≥ 0: B⁻(u) ≤ δ}``, ``B⁻(u) = Φ(-√(εu)) - e^ε Φ(-√(ε(u+2)))``,
    ``α = √(1 + u*/2) + √(u*/2)``. Root by doubling a bracket then ``brentq``;
    ``σ = αΔ/√(2ε)``. ``N(0, σ²)`` noise with this σ is (ε, δ)-DP (Theorem 8).

    Parameters
    ----------
    epsilon : float
        Privacy budget, ε > 0 (a scalar).
    delta : float
        Privacy parameter, 0 < δ < 1 (a scalar).
    {sensitivity}

    Returns
    -------
    float
        σ.
    """
    eps, dlt = (float(v) for v in privacy_parameters(epsilon, delta, delta_max=1.0))
    sens = positive("sensitivity", sensitivity)
    ndtr = special.ndtr
    delta_zero = ndtr(0.0) - np.exp(eps) * ndtr(-np.sqrt(2.0 * eps))

    if dlt >= delta_zero:

        def gap(v):
            return ndtr(np.sqrt(eps * v)) - np.exp(eps) * ndtr(-np.sqrt(eps * (v + 2.0))) - dlt
    else:

        def gap(v):
            return dlt - (ndtr(-np.sqrt(eps * v)) - np.exp(eps) * ndtr(-np.sqrt(eps * (v + 2.0))))

    upper = 1.0
    while gap(upper) <= 0:
        upper *= 2.0
    root = (
        0.0
        if gap(0.0) >= 0
        else optimize.brentq(gap, 0.0, upper, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    )
    sign = -1.0 if dlt >= delta_zero else 1.0
    alpha = np.sqrt(1.0 + root / 2.0) + sign * np.sqrt(root / 2.0)
    return float(alpha * sens / np.sqrt(2.0 * eps))


@shared_parameters(_PARAMETERS)
def classic_gaussian_sigma(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """``σ_cl = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth Thm A.1): (ε, δ)-DP only for ``ε < 1``.

    Evaluated for any ``ε > 0``, ``0 < δ < 1``; callers must restrict to ``ε < 1``.

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0; the guarantee needs ε < 1.
    {delta, sensitivity}

    Examples
    --------
    >>> from dpreplication.mechanisms import classic_gaussian_sigma
    >>> round(float(classic_gaussian_sigma(0.5, 1e-5)), 4)
    9.6896
    """
    eps, dlt = privacy_parameters(epsilon, delta, delta_max=1.0)
    return (positive("sensitivity", sensitivity) * np.sqrt(2.0 * np.log(1.25 / dlt)) / eps)[()]


@shared_parameters(_MOMENT_SIGMA)
def gaussian_amplitude(sigma) -> np.ndarray:
    """``E|X| = σ √(2/π)`` for ``X ~ N(0, σ²)``.

    Parameters
    ----------
    {sigma}
    """
    return (np.asarray(sigma, dtype=float) * np.sqrt(2.0 / np.pi))[()]


@shared_parameters(_MOMENT_SIGMA)
def gaussian_power(sigma) -> np.ndarray:
    """``E X² = σ²`` for ``X ~ N(0, σ²)``.

    Parameters
    ----------
    {sigma}
    """
    return (np.asarray(sigma, dtype=float) ** 2)[()]


@shared_parameters(_PARAMETERS)
def gaussian_pdf(x, sigma) -> np.ndarray:
    """Density ``e^{-x²/(2σ²)} / (σ √(2π))`` of the Gaussian noise ``N(0, σ²)``.

    With σ from :func:`analytic_gaussian_sigma` the noise is (ε, δ)-DP (Balle & Wang 2018, Theorem 8).

    Parameters
    ----------
    {x}
    sigma : float
        Standard deviation σ > 0 and finite (a scalar; ``ValueError`` otherwise).
    """
    x, sigma = np.asarray(x, dtype=float), positive("sigma", sigma)
    return (np.exp(-0.5 * (x / sigma) ** 2) / (sigma * np.sqrt(2.0 * np.pi)))[()]


@shared_parameters(_PARAMETERS)
def laplace_scale(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """Scale ``b = Δ/ε`` of the Laplace mechanism: ε-DP (δ = 0; Dwork & Roth, Theorem 3.6).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 (finite; ``ValueError`` otherwise).
    {sensitivity}
    """
    return (positive("sensitivity", sensitivity) / positive_array("epsilon", epsilon))[()]


@shared_parameters(_PARAMETERS)
def laplace_pdf(x, scale) -> np.ndarray:
    """Density ``e^{-|x|/b} / (2b)`` of the Laplace noise with scale ``b`` (``b = Δ/ε``: ε-DP).

    Parameters
    ----------
    {x}
    scale : float
        Scale ``b > 0`` and finite (a scalar; ``ValueError`` otherwise).
    """
    x, scale = np.asarray(x, dtype=float), positive("scale", scale)
    return (np.exp(-np.abs(x) / scale) / (2.0 * scale))[()]


def laplace_mechanism(value, epsilon: float, rng: np.random.Generator, sensitivity: float = 1.0):
    """Release ``value + Lap(Δ/ε)`` independently per coordinate.

    Guarantee: ε-DP when ``Δ`` bounds the L1 norm ``‖q(D) - q(D')‖₁`` of the
    change of the whole vector ``value`` between neighbours (Dwork & Roth, Theorem 3.6).

    Parameters
    ----------
    value : float or array_like
        The query answer ``q(D)``, any shape.
    epsilon : float
        Privacy budget, ε > 0 (finite; ``ValueError`` otherwise).
    rng : numpy.random.Generator
        Source of the noise.
    sensitivity : float
        L1 sensitivity Δ > 0 (finite) of the whole vector ``value``.

    Returns
    -------
    float or ndarray
        ``value + Lap(Δ/ε)``, of ``value``'s shape.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import laplace_mechanism
    >>> round(float(laplace_mechanism(10.0, epsilon=0.5, rng=np.random.default_rng(0))), 4)
    10.6402
    """
    value, scale = np.asarray(value, dtype=float), laplace_scale(epsilon, sensitivity)
    record_laplace("laplace_mechanism", scale, sensitivity)
    return (value + rng.laplace(0.0, scale, size=value.shape))[()]


@shared_parameters(_PARAMETERS)
def laplace_amplitude(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """``E|X| = Δ/ε`` of ``Laplace(Δ/ε)`` (ε-DP).

    Parameters
    ----------
    {epsilon, sensitivity}
    """
    return laplace_scale(epsilon, sensitivity)


@shared_parameters(_PARAMETERS)
def laplace_power(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """``E X² = 2Δ²/ε²`` of ``Laplace(Δ/ε)`` (ε-DP).

    Parameters
    ----------
    {epsilon, sensitivity}
    """
    return (2.0 * np.asarray(laplace_scale(epsilon, sensitivity)) ** 2)[()]
