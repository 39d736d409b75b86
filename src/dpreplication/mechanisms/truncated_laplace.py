"""The truncated Laplacian mechanism of Geng, Ding, Guo & Kumar (2020): release ``q(D) + X``.

Conventions (truncated-Laplacian spec §1–§3): sensitivity ``Δ = sup |q(D) - q(D')|`` over
neighbours, budget ``(ε, δ)``. By the spec's Lemma 1 a noise law ``P`` with density ``f`` is
(ε, δ)-DP iff the hockey-stick divergence ``H_ε(d) = ∫ (f(x) - e^ε f(x + d))_+ dx ≤ δ`` for every
``|d| ≤ Δ``.

The noise ``X`` has the density of Def. 3, ``B e^{-|x|/λ}`` on ``[-A, A]``, with ``λ = Δ/ε``,
``A = (Δ/ε) ln(1 + (e^ε - 1)/(2δ))`` and ``B = ε (e^ε - 1 + 2δ) / (2Δ (e^ε - 1))``; the release is
(ε, δ)-DP for ``0 < δ < ½`` (Theorem 1, tight at ``|d| = Δ``). Here: its calibration, its noise
amplitude ``E|X| = (Δ/ε) g(r)`` and power ``E X² = (Δ/ε)² h(r)`` (spec eqs. 5, 7; Thms 2, 3, with
``r = (e^ε - 1)/(2δ)``), its density, tail, CDF, quantile and exact sampler (spec §2), the
mechanism, and its exact hockey-stick divergence and privacy profile (spec §3).

Everything is vectorised over ``ε`` and ``δ`` (numpy broadcasting) and evaluated in log space or
with ``expm1``/``log1p`` (Taylor series of ``g`` and ``h`` for ``r < 0.1``) so that the formulas
stay accurate for ``δ`` down to ``1e-300`` and ``ε`` from ``1e-8`` up to ``100``. Functions given
only scalars return numpy scalars (``np.float64``). ``ε``, ``δ`` and Δ are checked by the shared
validators of :mod:`dpreplication.validation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.releases.recorder import record_truncated_laplace
from dpreplication.validation import (
    RAISES,
    finite_array,
    non_negative_array,
    positive,
    positive_array,
    privacy_parameters,
)

_PARAMETERS = parameter_entries(
    """
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (⇔ ``A > Δ``).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    r : float or array_like
        ``r = (e^ε - 1)/(2δ) > 0``.
    x : float or array_like
        Points at which to evaluate, any real.
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.
    """
)

# --------------------------------------------------------------------------- log space


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """``log(e^x - 1)`` for ``x > 0`` without overflow: ``x + log(1 - e^{-x})``."""
    return x + np.log(-np.expm1(-x))


# --------------------------------------------------------------------------- series for g and h


def _series_coefficients(n_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """Taylor coefficients (degree 0..n_terms) of ``g(r) = 1 - ln(1+r)/r`` and ``h(r) = 2 - (L² + 2L)/r``.

    Exact rational arithmetic: ``L = Σ_{k≥1} (-1)^{k+1} r^k / k``.
    """
    degree = n_terms + 2
    log1p_coeffs = [Fraction(0)] + [Fraction((-1) ** (k + 1), k) for k in range(1, degree + 1)]
    square = [sum(log1p_coeffs[i] * log1p_coeffs[k - i] for i in range(k + 1)) for k in range(degree + 1)]
    g = [Fraction(1) - log1p_coeffs[1]] + [-log1p_coeffs[k + 1] for k in range(1, n_terms + 1)]
    h = [Fraction(2) - 2 * log1p_coeffs[1]] + [
        -(square[k + 1] + 2 * log1p_coeffs[k + 1]) for k in range(1, n_terms + 1)
    ]
    return np.array([float(c) for c in g]), np.array([float(c) for c in h])


_SERIES_TERMS = 24
_SERIES_RADIUS = 0.1
_G_SERIES, _H_SERIES = _series_coefficients(_SERIES_TERMS)


@shared_parameters(_PARAMETERS)
def amplitude_shape_g(r) -> np.ndarray:
    """``g(r) = 1 - ln(1+r)/r`` so that ``V_up = (Δ/ε) g(r)`` (spec eq. 5); Taylor series for ``r < 0.1``.

    Parameters
    ----------
    {r}

    Returns
    -------
    float or ndarray
        ``g(r) ∈ (0, 1)``.
    """
    return _g_from_log_r(np.log(np.asarray(r, dtype=float)))[()]


@shared_parameters(_PARAMETERS)
def power_shape_h(r) -> np.ndarray:
    """``h(r) = 2 - (L² + 2L)/r``, ``L = ln(1+r)``, so that ``D_up = (Δ/ε)² h(r)`` (spec eq. 7).

    Taylor series for ``r < 0.1``.

    Parameters
    ----------
    {r}

    Returns
    -------
    float or ndarray
        ``h(r) ∈ (0, 2)``.
    """
    return _h_from_log_r(np.log(np.asarray(r, dtype=float)))[()]


def _g_from_log_r(log_r: np.ndarray) -> np.ndarray:
    r_small = np.exp(np.minimum(log_r, np.log(_SERIES_RADIUS)))
    series = np.polynomial.polynomial.polyval(r_small, _G_SERIES)
    with np.errstate(divide="ignore"):
        closed = -np.expm1(np.log(np.logaddexp(0.0, log_r)) - log_r)
    return np.where(log_r < np.log(_SERIES_RADIUS), series, closed)


def _h_from_log_r(log_r: np.ndarray) -> np.ndarray:
    r_small = np.exp(np.minimum(log_r, np.log(_SERIES_RADIUS)))
    series = np.polynomial.polynomial.polyval(r_small, _H_SERIES)
    big_l = np.logaddexp(0.0, log_r)
    with np.errstate(over="ignore", invalid="ignore"):
        closed = 2.0 - big_l * (big_l + 2.0) * np.exp(-log_r)
    return np.where(log_r < np.log(_SERIES_RADIUS), series, closed)


# --------------------------------------------------------------------------- truncated Laplacian: calibration


@dataclass(frozen=True)
class TruncatedLaplaceCalibration:
    """Def. 3 quantities for budgets ``(ε, δ)`` (arrays broadcast together).

    ``scale = λ = Δ/ε``; ``bound = A = λ L``; ``normaliser = B = (½ + c)/λ``;
    ``log_r = ln r``, ``r = (e^ε - 1)/(2δ)``; ``c = δ/(e^ε - 1)``;
    ``n = A/Δ = L/ε`` (spec §2 notation), with ``L = ln(1 + r)``. Built by
    :func:`calibrate_truncated_laplace`; noise with these parameters makes ``q(D) + X``
    (ε, δ)-DP (Theorem 1).

    Parameters
    ----------
    epsilon : ndarray
        Privacy budget, ε > 0.
    delta : ndarray
        Privacy parameter, 0 < δ < ½.
    sensitivity : float
        Sensitivity Δ > 0.
    scale : ndarray
        ``λ = Δ/ε``.
    bound : ndarray
        ``A = λ L > Δ``.
    normaliser : ndarray
        Density height ``B = (½ + c)/λ`` at 0.
    log_r : ndarray
        ``ln r``, ``r = (e^ε - 1)/(2δ)``.
    c : ndarray
        ``c = δ/(e^ε - 1) > 0``.
    n : ndarray
        ``n = A/Δ = L/ε > 1``.
    """

    epsilon: np.ndarray
    delta: np.ndarray
    sensitivity: float
    scale: np.ndarray
    bound: np.ndarray
    normaliser: np.ndarray
    log_r: np.ndarray
    c: np.ndarray
    n: np.ndarray


@shared_parameters(_PARAMETERS, RAISES)
def calibrate_truncated_laplace(epsilon, delta, sensitivity: float = 1.0) -> TruncatedLaplaceCalibration:
    """Compute the truncated Laplacian parameters of spec §2 (paper Def. 3), in log space.

    ``λ = Δ/ε``, ``A = (Δ/ε) ln(1 + (e^ε - 1)/(2δ))``,
    ``B = ε (e^ε - 1 + 2δ) / (2Δ (e^ε - 1)) = (½ + δ/(e^ε - 1)) / λ``.
    Valid range ``ε > 0``, ``0 < δ < ½`` (⇔ ``A > Δ``); ``ValueError`` otherwise.
    Noise with these parameters is (ε, δ)-DP (Theorem 1).

    Parameters
    ----------
    {epsilon, delta, sensitivity}

    Returns
    -------
    TruncatedLaplaceCalibration
        The Def. 3 quantities, arrays of the broadcast shape of ``epsilon`` and ``delta``.

    {raises_privacy_out_of_range}

    Examples
    --------
    >>> from dpreplication.mechanisms import calibrate_truncated_laplace
    >>> calibration = calibrate_truncated_laplace(epsilon=1.0, delta=1e-6)
    >>> float(calibration.scale), round(float(calibration.bound), 4)
    (1.0, 13.6637)
    """
    eps, dlt = privacy_parameters(epsilon, delta, delta_max=0.5)
    sens = positive("sensitivity", sensitivity)
    log_expm1_eps = _log_expm1(eps)
    log_r = log_expm1_eps - np.log(2.0 * dlt)
    big_l = np.logaddexp(0.0, log_r)
    c = np.exp(np.log(dlt) - log_expm1_eps)
    scale = sens / eps
    return TruncatedLaplaceCalibration(
        epsilon=eps,
        delta=dlt,
        sensitivity=sens,
        scale=scale,
        bound=scale * big_l,
        normaliser=(0.5 + c) / scale,
        log_r=log_r,
        c=c,
        n=big_l / eps,
    )


@shared_parameters(_PARAMETERS)
def truncated_laplace_bound(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Support half-width ``A = (Δ/ε) ln(1 + (e^ε - 1)/(2δ))`` (Def. 3); equals diffprivlib's ``_noise_bound``.

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    return calibrate_truncated_laplace(epsilon, delta, sensitivity).bound[()]


@shared_parameters(_PARAMETERS)
def truncated_laplace_normaliser(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Density height ``B = ε (e^ε - 1 + 2δ) / (2Δ (e^ε - 1))`` at 0 (Def. 3).

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    return calibrate_truncated_laplace(epsilon, delta, sensitivity).normaliser[()]


@shared_parameters(_PARAMETERS)
def truncated_laplace_amplitude(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Noise amplitude ``E|X| = V_up = (Δ/ε) g(r)``, ``g(r) = 1 - ln(1+r)/r`` (spec eq. 5, Thm 2).

    ``r = (e^ε - 1)/(2δ)``; a 24-term Taylor series of ``g`` is used for
    ``r < 0.1`` (ε → 0), and ``L/r`` is formed as ``L e^{-ln r}`` so that
    ``δ → 0`` cannot overflow. Limits: ``Δ/ε`` (δ → 0), ``Δ/(4δ)`` (ε → 0).

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return (cal.scale * _g_from_log_r(cal.log_r))[()]


@shared_parameters(_PARAMETERS)
def truncated_laplace_power(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Noise power ``E X² = D_up = (Δ/ε)² h(r)``, ``h(r) = 2 - (L² + 2L)/r`` (spec eq. 7, Thm 3).

    Series for ``r < 0.1`` (the naive form is off by 8e-4 relative at
    ``ε = 1e-7, δ = 0.05``). Limits: ``2Δ²/ε²`` (δ → 0), ``Δ²/(12δ²)`` (ε → 0).

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return (cal.scale**2 * _h_from_log_r(cal.log_r))[()]


# --------------------------------------------------------------------------- truncated Laplacian: distribution


def _shape(scale, bound) -> tuple[np.ndarray, np.ndarray]:
    return positive_array("scale", scale), positive_array("bound", bound)


@shared_parameters(_PARAMETERS)
def truncated_laplace_pdf(x, scale, bound) -> np.ndarray:
    """Density ``f(x) = B e^{-|x|/λ} 1{|x| ≤ A}``, ``B = 1/(2λ(1 - e^{-A/λ}))`` (Def. 3).

    Parametrised by ``λ = scale`` and ``A = bound`` so that mis-calibrated
    variants can be audited; the calibrated mechanism uses
    :func:`calibrate_truncated_laplace`. Guarantee when calibrated: (ε, δ)-DP (Thm 1).

    Parameters
    ----------
    {x, scale, bound}
    """
    lam, big_a = _shape(scale, bound)
    x = np.asarray(x, dtype=float)
    height = 1.0 / (2.0 * lam * -np.expm1(-big_a / lam))
    return np.where(np.abs(x) <= big_a, height * np.exp(-np.abs(x) / lam), 0.0)[()]


@shared_parameters(_PARAMETERS)
def truncated_laplace_tail(x, scale, bound) -> np.ndarray:
    """One-sided tail ``T(x) = P(X > x)`` for ``x ≥ 0`` (spec §2), without cancellation.

    ``T(x) = Bλ e^{-x/λ} (1 - e^{-(A - x)/λ})`` on ``[0, A]`` (= ``(½ + c) e^{-εx/Δ} - c``
    when calibrated), 0 beyond ``A``; for ``x < 0`` returns ``1 - T(-x)``.

    Parameters
    ----------
    {x, scale, bound}
    """
    lam, big_a = _shape(scale, bound)
    x = np.asarray(x, dtype=float)
    ax = np.minimum(np.abs(x), big_a)
    half_mass = 1.0 / (2.0 * -np.expm1(-big_a / lam))
    upper = half_mass * np.exp(-ax / lam) * -np.expm1(-(big_a - ax) / lam)
    return np.where(x >= 0, upper, 1.0 - upper)[()]


@shared_parameters(_PARAMETERS)
def truncated_laplace_cdf(x, scale, bound) -> np.ndarray:
    """CDF ``F(x) = T(-x)`` for ``x ≤ 0`` and ``1 - T(x)`` for ``x > 0`` (spec §2).

    Parameters
    ----------
    {x, scale, bound}
    """
    lam, big_a = _shape(scale, bound)
    x = np.asarray(x, dtype=float)
    return truncated_laplace_tail(-x, lam, big_a)


@shared_parameters(_PARAMETERS)
def truncated_laplace_quantile(p, scale, bound) -> np.ndarray:
    """Inverse CDF of the truncated Laplacian: ``F^{-1}(p) = sign(p - ½) · y`` (spec §2).

    ``y = -λ ln(e^{-A/λ} + 2q(1 - e^{-A/λ}))``, ``q = min(p, 1-p)``.
    Equivalent to the spec §2 sampler ``Y = -λ ln(1 - U(1 - e^{-A/λ}))`` with
    ``U = 1 - 2q``; the ``log1p`` form is used when ``y`` is small. Always
    ``|F^{-1}(p)| ≤ A``.

    Parameters
    ----------
    p : float or array_like
        Probabilities, 0 ≤ p ≤ 1 (``ValueError`` otherwise).
    {scale, bound}
    """
    lam, big_a = _shape(scale, bound)
    p = np.asarray(p, dtype=float)
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("probabilities must lie in [0, 1]")
    q = np.minimum(p, 1.0 - p)
    kept = -np.expm1(-big_a / lam)
    drop = (1.0 - 2.0 * q) * kept
    y = np.where(
        drop < 0.5,
        -lam * np.log1p(-drop),
        -lam * np.log(np.exp(-big_a / lam) + 2.0 * q * kept),
    )
    y = np.minimum(y, big_a)
    return np.where(p < 0.5, -y, y)[()]


@shared_parameters(_PARAMETERS)
def sample_truncated_laplace(rng: np.random.Generator, scale, bound, size) -> np.ndarray:
    """Exact draws ``F^{-1}(U)``, ``U ~ Unif[0, 1)`` from ``rng`` (spec §2 sampler).

    Guarantee: with ``λ = Δ/ε`` and ``A`` from :func:`calibrate_truncated_laplace`, adding one draw
    to a query of sensitivity Δ is (ε, δ)-DP for ``0 < δ < ½`` (Theorem 1, Definition 3).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the uniforms.
    {scale, bound}
    size : int or tuple of int
        Shape of the draws (as for ``Generator.random``); broadcast with ``scale`` and ``bound``.

    Returns
    -------
    ndarray
        Draws in ``[-A, A]``.
    """
    return truncated_laplace_quantile(rng.random(size), scale, bound)


def truncated_laplace_mechanism(
    value, epsilon: float, delta: float, rng: np.random.Generator, sensitivity: float = 1.0
):
    """Release ``value + X``, X truncated Laplacian: (ε, δ)-DP for ``0 < δ < ½`` (Thm 1, tight at ``|d| = Δ``).

    Guarantee: (ε, δ)-DP for a scalar query of sensitivity Δ (Theorem 1 of Geng et al., noise of
    Definition 3). Every entry of an array ``value`` gets independent noise, so each entry is
    released (ε, δ)-DP; entries that change together between neighbours compose.

    Parameters
    ----------
    value : float or array_like
        The query answer ``q(D)``, any shape.
    epsilon : float
        Privacy budget, ε > 0.
    delta : float
        Privacy parameter, 0 < δ < ½.
    rng : numpy.random.Generator
        Source of the noise.
    sensitivity : float
        Sensitivity Δ > 0 of each entry of the query.

    Returns
    -------
    float or ndarray
        ``value + X``, of ``value``'s shape.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import truncated_laplace_mechanism
    >>> from dpreplication.mechanisms import calibrate_truncated_laplace
    >>> noisy = truncated_laplace_mechanism(np.zeros(5), epsilon=1.0, delta=1e-6, rng=np.random.default_rng(0))
    >>> bool(np.all(np.abs(noisy) <= calibrate_truncated_laplace(1.0, 1e-6).bound))  # supported on [-A, A]
    True
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    value = np.asarray(value, dtype=float)
    record_truncated_laplace("truncated_laplace_mechanism", cal.scale, cal.bound, sensitivity, value.size)
    return (value + sample_truncated_laplace(rng, cal.scale, cal.bound, value.shape))[()]


# --------------------------------------------------------------------------- privacy profile


def _abs_exp_antiderivative(t: np.ndarray) -> np.ndarray:
    """``E(t) = sign(t)(1 - e^{-|t|})``, an antiderivative of ``e^{-|t|}``."""
    return np.sign(t) * -np.expm1(-np.abs(t))


@shared_parameters(_PARAMETERS)
def truncated_laplace_hockey_stick(epsilon_prime, shift, scale, bound) -> np.ndarray:
    """Exact ``H_{ε'}(d) = ∫ (f(x) - e^{ε'} f(x + d))_+ dx`` for the truncated Laplacian (spec §3).

    In units of ``λ`` (``s = |d|/λ``, ``a = A/λ``): the part of ``[-a, a]``
    that the shift moves out of the support contributes ``∫_{max(a-s,-a)}^{a} e^{-|t|}``
    (``= e^{-a}(e^s - 1)`` when ``s ≤ a``); where both densities are
    positive the integrand is positive only if ``ε' < s``, on
    ``t > (ε' - s)/2``. Everything is multiplied by ``Bλ = 1/(2(1 - e^{-a}))``.
    Calibrated: ``H_ε(d) = δ (e^{ε|d|/Δ} - 1)/(e^ε - 1)`` for ``|d| ≤ Δ``, and
    ``H_{ε'}(Δ) = δ`` for every ``ε' ≥ ε`` (flat profile).

    Parameters
    ----------
    epsilon_prime : float or array_like
        ``ε' ≥ 0`` and finite (``ValueError`` otherwise).
    shift : float or array_like
        Shift ``d`` between neighbouring query answers, any finite real (only ``|d|`` enters).
    {scale, bound}

    Returns
    -------
    float or ndarray
        ``H_{ε'}(d) ∈ [0, 1]``, broadcast over the arguments.
    """
    lam, big_a = _shape(scale, bound)
    eps_prime = non_negative_array("epsilon_prime", epsilon_prime)
    s = np.abs(finite_array("shift", shift)) / lam
    a = big_a / lam
    eps_prime, s, a = np.broadcast_arrays(eps_prime, s, a)
    start = np.maximum(a - s, -a)
    moved_out = np.where(
        a >= s,
        np.exp(-a) * np.expm1(np.minimum(s, a)),
        _abs_exp_antiderivative(a) - _abs_exp_antiderivative(start),
    )
    lo = np.maximum(0.5 * (eps_prime - s), -a)
    hi = a - s
    active = (eps_prime < s) & (hi > lo)
    lo_a, hi_a = np.where(active, lo, 0.0), np.where(active, hi, 0.0)
    overlap = (_abs_exp_antiderivative(hi_a) - _abs_exp_antiderivative(lo_a)) - np.exp(
        np.where(active, eps_prime, 0.0)
    ) * (_abs_exp_antiderivative(hi_a + s) - _abs_exp_antiderivative(lo_a + s))
    total = moved_out + np.where(active, np.maximum(overlap, 0.0), 0.0)
    return (total / (2.0 * -np.expm1(-a)))[()]


@shared_parameters(_PARAMETERS)
def truncated_laplace_privacy_profile(epsilon_prime, epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """``δ(ε') = H_{ε'}(Δ)`` of the mechanism calibrated to ``(ε, δ)``: ``= δ`` for all ``ε' ≥ ε`` (spec §3, E5).

    The hockey-stick at the full shift ``|d| = Δ``; spec Lemma 1 takes its supremum over ``|d| ≤ Δ``
    for (ε', δ')-DP.

    Parameters
    ----------
    epsilon_prime : float or array_like
        ``ε' ≥ 0`` at which to evaluate the profile.
    epsilon : float or array_like
        Calibration budget, ε > 0.
    delta : float or array_like
        Calibration parameter, 0 < δ < ½.
    {sensitivity}
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return truncated_laplace_hockey_stick(epsilon_prime, cal.sensitivity, cal.scale, cal.bound)
