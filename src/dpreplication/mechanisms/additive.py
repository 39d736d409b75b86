"""Additive-noise mechanisms for a real-valued query: release ``q(D) + X``.

Conventions (truncated-Laplacian spec §1–§3, §7): sensitivity
``Δ = sup |q(D) - q(D')|`` over neighbours, budget ``(ε, δ)``. By the spec's
Lemma 1 a noise law ``P`` with density ``f`` is (ε, δ)-DP iff the hockey-stick
divergence ``H_ε(d) = ∫ (f(x) - e^ε f(x + d))_+ dx ≤ δ`` for every ``|d| ≤ Δ``.

Mechanisms here, each with its guarantee in its docstring:

* the truncated Laplacian of Geng, Ding, Guo & Kumar (Def. 3): density
  ``B e^{-|x|/λ}`` on ``[-A, A]``, with ``λ = Δ/ε`` and
  ``A = (Δ/ε) ln(1 + (e^ε - 1)/(2δ))`` — (ε, δ)-DP for ``0 < δ < ½``;
* the analytic Gaussian of Balle & Wang (2018, Thm 8), calibrated by a
  vectorised log-space bisection (spec §7, "robust production solver");
* the classic Gaussian ``σ = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth, ε < 1) and
  the ε-DP Laplace mechanism ``Laplace(Δ/ε)``.

Everything is vectorised over ``ε`` and ``δ`` (numpy broadcasting) and
evaluated in log space or with ``expm1``/``log1p`` so that the formulas stay
accurate for ``δ`` down to ``1e-300`` and ``ε`` from ``1e-8`` up to ``100``.
Functions given only scalars return numpy scalars (``np.float64``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import optimize, special

from dpreplication.numerics import log1mexp

# --------------------------------------------------------------------------- validation


def _positive_finite(name: str, value) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array) & (array > 0)):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return array


def _privacy_parameters(epsilon, delta, delta_max: float) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast ``ε > 0`` and ``0 < δ < delta_max``; raise ``ValueError`` otherwise."""
    eps = _positive_finite("epsilon", epsilon)
    dlt = np.asarray(delta, dtype=float)
    if not np.all((dlt > 0) & (dlt < delta_max)):
        raise ValueError(f"delta must lie in (0, {delta_max}), got {delta!r}")
    return np.broadcast_arrays(eps, dlt)


def _sensitivity(sensitivity) -> float:
    value = float(sensitivity)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"sensitivity must be positive and finite, got {sensitivity!r}")
    return value


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


def amplitude_shape_g(r) -> np.ndarray:
    """``g(r) = 1 - ln(1+r)/r`` so that ``V_up = (Δ/ε) g(r)`` (spec eq. 5); Taylor series for ``r < 0.1``.

    Parameters
    ----------
    r : float or array_like
        ``r = (e^ε - 1)/(2δ) > 0``.

    Returns
    -------
    float or ndarray
        ``g(r) ∈ (0, 1)``.
    """
    return _g_from_log_r(np.log(np.asarray(r, dtype=float)))[()]


def power_shape_h(r) -> np.ndarray:
    """``h(r) = 2 - (L² + 2L)/r``, ``L = ln(1+r)``, so that ``D_up = (Δ/ε)² h(r)`` (spec eq. 7).

    Taylor series for ``r < 0.1``.

    Parameters
    ----------
    r : float or array_like
        ``r = (e^ε - 1)/(2δ) > 0``.

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


def calibrate_truncated_laplace(epsilon, delta, sensitivity: float = 1.0) -> TruncatedLaplaceCalibration:
    """Compute the truncated Laplacian parameters of spec §2 (paper Def. 3), in log space.

    ``λ = Δ/ε``, ``A = (Δ/ε) ln(1 + (e^ε - 1)/(2δ))``,
    ``B = ε (e^ε - 1 + 2δ) / (2Δ (e^ε - 1)) = (½ + δ/(e^ε - 1)) / λ``.
    Valid range ``ε > 0``, ``0 < δ < ½`` (⇔ ``A > Δ``); ``ValueError`` otherwise.
    Noise with these parameters is (ε, δ)-DP (Theorem 1).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (⇔ ``A > Δ``).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.

    Returns
    -------
    TruncatedLaplaceCalibration
        The Def. 3 quantities, arrays of the broadcast shape of ``epsilon`` and ``delta``.

    Raises
    ------
    ValueError
        If ``ε``, ``δ`` or Δ lies outside its range.

    Examples
    --------
    >>> from dpreplication.mechanisms import calibrate_truncated_laplace
    >>> calibration = calibrate_truncated_laplace(epsilon=1.0, delta=1e-6)
    >>> float(calibration.scale), round(float(calibration.bound), 4)
    (1.0, 13.6637)
    """
    eps, dlt = _privacy_parameters(epsilon, delta, delta_max=0.5)
    sens = _sensitivity(sensitivity)
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


def truncated_laplace_bound(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Support half-width ``A = (Δ/ε) ln(1 + (e^ε - 1)/(2δ))`` (Def. 3); equals diffprivlib's ``_noise_bound``.

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (⇔ ``A > Δ``).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    return calibrate_truncated_laplace(epsilon, delta, sensitivity).bound[()]


def truncated_laplace_normaliser(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Density height ``B = ε (e^ε - 1 + 2δ) / (2Δ (e^ε - 1))`` at 0 (Def. 3).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (⇔ ``A > Δ``).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    return calibrate_truncated_laplace(epsilon, delta, sensitivity).normaliser[()]


def truncated_laplace_amplitude(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Noise amplitude ``E|X| = V_up = (Δ/ε) g(r)``, ``g(r) = 1 - ln(1+r)/r`` (spec eq. 5, Thm 2).

    ``r = (e^ε - 1)/(2δ)``; a 24-term Taylor series of ``g`` is used for
    ``r < 0.1`` (ε → 0), and ``L/r`` is formed as ``L e^{-ln r}`` so that
    ``δ → 0`` cannot overflow. Limits: ``Δ/ε`` (δ → 0), ``Δ/(4δ)`` (ε → 0).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (⇔ ``A > Δ``).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return (cal.scale * _g_from_log_r(cal.log_r))[()]


def truncated_laplace_power(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Noise power ``E X² = D_up = (Δ/ε)² h(r)``, ``h(r) = 2 - (L² + 2L)/r`` (spec eq. 7, Thm 3).

    Series for ``r < 0.1`` (the naive form is off by 8e-4 relative at
    ``ε = 1e-7, δ = 0.05``). Limits: ``2Δ²/ε²`` (δ → 0), ``Δ²/(12δ²)`` (ε → 0).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 and finite; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (⇔ ``A > Δ``).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return (cal.scale**2 * _h_from_log_r(cal.log_r))[()]


# --------------------------------------------------------------------------- truncated Laplacian: distribution


def _shape(scale, bound) -> tuple[np.ndarray, np.ndarray]:
    return _positive_finite("scale", scale), _positive_finite("bound", bound)


def truncated_laplace_pdf(x, scale, bound) -> np.ndarray:
    """Density ``f(x) = B e^{-|x|/λ} 1{|x| ≤ A}``, ``B = 1/(2λ(1 - e^{-A/λ}))`` (Def. 3).

    Parametrised by ``λ = scale`` and ``A = bound`` so that mis-calibrated
    variants can be audited; the calibrated mechanism uses
    :func:`calibrate_truncated_laplace`. Guarantee when calibrated: (ε, δ)-DP (Thm 1).

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate, any real.
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.
    """
    lam, big_a = _shape(scale, bound)
    x = np.asarray(x, dtype=float)
    height = 1.0 / (2.0 * lam * -np.expm1(-big_a / lam))
    return np.where(np.abs(x) <= big_a, height * np.exp(-np.abs(x) / lam), 0.0)[()]


def truncated_laplace_tail(x, scale, bound) -> np.ndarray:
    """One-sided tail ``T(x) = P(X > x)`` for ``x ≥ 0`` (spec §2), without cancellation.

    ``T(x) = Bλ e^{-x/λ} (1 - e^{-(A - x)/λ})`` on ``[0, A]`` (= ``(½ + c) e^{-εx/Δ} - c``
    when calibrated), 0 beyond ``A``; for ``x < 0`` returns ``1 - T(-x)``.

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate, any real.
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.
    """
    lam, big_a = _shape(scale, bound)
    x = np.asarray(x, dtype=float)
    ax = np.minimum(np.abs(x), big_a)
    half_mass = 1.0 / (2.0 * -np.expm1(-big_a / lam))
    upper = half_mass * np.exp(-ax / lam) * -np.expm1(-(big_a - ax) / lam)
    return np.where(x >= 0, upper, 1.0 - upper)[()]


def truncated_laplace_cdf(x, scale, bound) -> np.ndarray:
    """CDF ``F(x) = T(-x)`` for ``x ≤ 0`` and ``1 - T(x)`` for ``x > 0`` (spec §2).

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate, any real.
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.
    """
    lam, big_a = _shape(scale, bound)
    x = np.asarray(x, dtype=float)
    return truncated_laplace_tail(-x, lam, big_a)


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
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.
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


def sample_truncated_laplace(rng: np.random.Generator, scale, bound, size) -> np.ndarray:
    """Exact draws ``F^{-1}(U)``, ``U ~ Unif[0, 1)`` from ``rng`` (spec §2 sampler).

    Guarantee: with ``λ = Δ/ε`` and ``A`` from :func:`calibrate_truncated_laplace`, adding one draw
    to a query of sensitivity Δ is (ε, δ)-DP for ``0 < δ < ½`` (Theorem 1, Definition 3).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the uniforms.
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.
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
    return (value + sample_truncated_laplace(rng, cal.scale, cal.bound, value.shape))[()]


# --------------------------------------------------------------------------- privacy profiles


def _abs_exp_antiderivative(t: np.ndarray) -> np.ndarray:
    """``E(t) = sign(t)(1 - e^{-|t|})``, an antiderivative of ``e^{-|t|}``."""
    return np.sign(t) * -np.expm1(-np.abs(t))


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
        ``ε' ≥ 0`` (``ValueError`` otherwise).
    shift : float or array_like
        Shift ``d`` between neighbouring query answers, any real (only ``|d|`` enters).
    scale : float or array_like
        ``λ > 0`` (finite); ``Δ/ε`` when calibrated.
    bound : float or array_like
        Support half-width ``A > 0`` (finite); the calibrated ``A`` exceeds Δ.

    Returns
    -------
    float or ndarray
        ``H_{ε'}(d) ∈ [0, 1]``, broadcast over the arguments.
    """
    lam, big_a = _shape(scale, bound)
    eps_prime = np.asarray(epsilon_prime, dtype=float)
    if np.any(eps_prime < 0):
        raise ValueError("epsilon_prime must be non-negative")
    s = np.abs(np.asarray(shift, dtype=float)) / lam
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
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    return truncated_laplace_hockey_stick(epsilon_prime, cal.sensitivity, cal.scale, cal.bound)


def log_gaussian_hockey_stick(epsilon_prime, shift, sigma) -> np.ndarray:
    """``ln H_{ε'}(d)`` for ``N(0, σ²)`` noise (Balle & Wang 2018, Thm 8), in log space.

    ``H = Φ(a) - e^{ε'} Φ(b)``, ``a = |d|/(2σ) - ε'σ/|d|``, ``b = -|d|/(2σ) - ε'σ/|d|``;
    evaluated as ``ln Φ(a) + ln(1 - e^{ε' + ln Φ(b) - ln Φ(a)})`` (spec §7).
    Returns ``-inf`` where rounding makes the exponent ≥ 0 (δ below float
    resolution of ``Φ(a)``). ``shift`` must be non-zero.

    Parameters
    ----------
    epsilon_prime : float or array_like
        ``ε'``, real (``ε' ≥ 0`` in DP use).
    shift : float or array_like
        Shift ``d ≠ 0`` (finite) between neighbouring query answers; only ``|d|`` enters.
    sigma : float or array_like
        Noise standard deviation σ > 0 (finite).

    Returns
    -------
    float or ndarray
        ``ln H_{ε'}(d)``; at ``d = Δ`` this is the ``ln δ`` for which ``N(0, σ²)`` noise is
        ``(ε', δ)``-DP (Theorem 8).
    """
    eps_prime = np.asarray(epsilon_prime, dtype=float)
    d = _positive_finite("|shift|", np.abs(np.asarray(shift, dtype=float)))
    sig = _positive_finite("sigma", sigma)
    half = d / (2.0 * sig)
    drift = eps_prime * sig / d
    log_phi_a = special.log_ndtr(half - drift)
    exponent = eps_prime + special.log_ndtr(-half - drift) - log_phi_a
    safe = exponent < 0
    return np.where(safe, log_phi_a + log1mexp(np.where(safe, exponent, -1.0)), -np.inf)[()]


def gaussian_privacy_profile(epsilon_prime, sigma, sensitivity: float = 1.0) -> np.ndarray:
    """``δ(ε') = Φ(Δ/(2σ) - ε'σ/Δ) - e^{ε'} Φ(-Δ/(2σ) - ε'σ/Δ)``: the exact privacy profile of ``N(0, σ²)``.

    ``N(0, σ²)`` noise on a query of L2 sensitivity Δ is ``(ε', δ(ε'))``-DP for every ``ε' ≥ 0``
    (Balle & Wang 2018, Theorem 8).

    Parameters
    ----------
    epsilon_prime : float or array_like
        ``ε'``, real (``ε' ≥ 0`` in DP use).
    sigma : float or array_like
        Noise standard deviation σ > 0 (finite).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    return np.exp(log_gaussian_hockey_stick(epsilon_prime, _sensitivity(sensitivity), sigma))[()]


def laplace_privacy_profile(epsilon_prime, epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """``δ(ε') = max(0, 1 - e^{(ε' - ε)/2})`` of ``Laplace(Δ/ε)`` at shift Δ (ε-DP: ``δ(ε) = 0``).

    Parameters
    ----------
    epsilon_prime : float or array_like
        ``ε'``, real (``ε' ≥ 0`` in DP use).
    epsilon : float or array_like
        Budget of the Laplace mechanism, ε > 0 (finite; ``ValueError`` otherwise).
    sensitivity : float
        Sensitivity Δ > 0 (finite; ``ValueError`` otherwise); the profile does not depend on it.
    """
    _positive_finite("sensitivity", sensitivity)
    eps = _positive_finite("epsilon", epsilon)
    eps_prime = np.asarray(epsilon_prime, dtype=float)
    return np.maximum(0.0, -np.expm1(np.minimum(eps_prime - eps, 0.0) / 2.0))[()]


# --------------------------------------------------------------------------- Gaussian calibrations


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
    delta : float or array_like
        Privacy parameter, 0 < δ < 1.
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    iterations : int
        Number of bisection halvings, ``iterations ≥ 0``; 64 reach float resolution.

    Returns
    -------
    float or ndarray
        σ, a numpy scalar for scalar input.

    Raises
    ------
    ValueError
        If ``ε``, ``δ`` or Δ lies outside its range.

    Examples
    --------
    >>> from dpreplication.mechanisms import analytic_gaussian_sigma, classic_gaussian_sigma
    >>> round(float(analytic_gaussian_sigma(1.0, 1e-6)), 4), round(float(classic_gaussian_sigma(1.0, 1e-6)), 4)
    (4.2247, 5.2988)
    """
    eps, dlt = _privacy_parameters(epsilon, delta, delta_max=1.0)
    sens = _sensitivity(sensitivity)
    target = np.log(dlt)
    lo = np.full(eps.shape, -40.0)
    hi = np.full(eps.shape, 40.0)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        too_private = log_gaussian_hockey_stick(eps, 1.0, np.exp(mid)) <= target
        hi = np.where(too_private, mid, hi)
        lo = np.where(too_private, lo, mid)
    return (sens * np.exp(0.5 * (lo + hi)))[()]


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
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.

    Returns
    -------
    float
        σ.
    """
    eps, dlt = (float(v) for v in _privacy_parameters(epsilon, delta, delta_max=1.0))
    sens = _sensitivity(sensitivity)
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


def classic_gaussian_sigma(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """``σ_cl = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth Thm A.1): (ε, δ)-DP only for ``ε < 1``.

    Evaluated for any ``ε > 0``, ``0 < δ < 1``; callers must restrict to ``ε < 1``.

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0; the guarantee needs ε < 1.
    delta : float or array_like
        Privacy parameter, 0 < δ < 1.
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.

    Examples
    --------
    >>> from dpreplication.mechanisms import classic_gaussian_sigma
    >>> round(float(classic_gaussian_sigma(0.5, 1e-5)), 4)
    9.6896
    """
    eps, dlt = _privacy_parameters(epsilon, delta, delta_max=1.0)
    return (_sensitivity(sensitivity) * np.sqrt(2.0 * np.log(1.25 / dlt)) / eps)[()]


def gaussian_amplitude(sigma) -> np.ndarray:
    """``E|X| = σ √(2/π)`` for ``X ~ N(0, σ²)``.

    Parameters
    ----------
    sigma : float or array_like
        Standard deviation σ ≥ 0.
    """
    return (np.asarray(sigma, dtype=float) * np.sqrt(2.0 / np.pi))[()]


def gaussian_power(sigma) -> np.ndarray:
    """``E X² = σ²`` for ``X ~ N(0, σ²)``.

    Parameters
    ----------
    sigma : float or array_like
        Standard deviation σ ≥ 0.
    """
    return (np.asarray(sigma, dtype=float) ** 2)[()]


def gaussian_pdf(x, sigma) -> np.ndarray:
    """Density ``e^{-x²/(2σ²)} / (σ √(2π))`` of the Gaussian noise ``N(0, σ²)``.

    With σ from :func:`analytic_gaussian_sigma` the noise is (ε, δ)-DP (Balle & Wang 2018, Theorem 8).

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate, any real.
    sigma : float
        Standard deviation σ > 0 (a scalar).
    """
    x, sigma = np.asarray(x, dtype=float), float(sigma)
    return (np.exp(-0.5 * (x / sigma) ** 2) / (sigma * np.sqrt(2.0 * np.pi)))[()]


def laplace_scale(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """Scale ``b = Δ/ε`` of the Laplace mechanism: ε-DP (δ = 0; Dwork & Roth, Theorem 3.6).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 (finite; ``ValueError`` otherwise).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    return (_sensitivity(sensitivity) / _positive_finite("epsilon", epsilon))[()]


def laplace_pdf(x, scale) -> np.ndarray:
    """Density ``e^{-|x|/b} / (2b)`` of the Laplace noise with scale ``b`` (``b = Δ/ε``: ε-DP).

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate, any real.
    scale : float
        Scale ``b > 0`` (a scalar).
    """
    x, scale = np.asarray(x, dtype=float), float(scale)
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
    value = np.asarray(value, dtype=float)
    return (value + rng.laplace(0.0, laplace_scale(epsilon, sensitivity), size=value.shape))[()]


def laplace_amplitude(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """``E|X| = Δ/ε`` of ``Laplace(Δ/ε)`` (ε-DP).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 (finite).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    return laplace_scale(epsilon, sensitivity)


def laplace_power(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """``E X² = 2Δ²/ε²`` of ``Laplace(Δ/ε)`` (ε-DP).

    Parameters
    ----------
    epsilon : float or array_like
        Privacy budget, ε > 0 (finite).
    sensitivity : float
        Sensitivity Δ > 0 (finite) of the query.
    """
    return (2.0 * np.asarray(laplace_scale(epsilon, sensitivity)) ** 2)[()]
