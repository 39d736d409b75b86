"""Bounds on the optimal noise amplitude ``V*`` and power ``D*`` under (ε, δ)-DP.

Geng, Ding, Guo & Kumar bracket ``V* = inf E|X|`` and ``D* = inf E X²`` over all
(ε, δ)-DP additive noise laws (spec §1): ``V_low ≤ V* ≤ V_up`` and
``D_low ≤ D* ≤ D_up``.

* Upper bounds (Thms 2, 3): the truncated Laplacian's exact cost, eqs. (5), (7).
* Lower bounds (Thms 4, 5): **reconstructed** (spec §5 eqs. ``11*``, ``12*``); the
  paper's own eqs. (11), (12) were not recoverable. From the half-line
  recursion ``G(x + Δ) ≥ e^{-ε}(G(x) - δ)``, ``G(0) ≥ ½``, every feasible
  symmetric law has ``P(X ≥ jΔ) ≥ u_j = (½ + c) e^{-jε} - c`` with
  ``c = δ/(e^ε - 1)``, so with ``m = ⌊n⌋``, ``n = (1/ε) ln(1 + (e^ε - 1)/(2δ))``:
  ``V_low = 2Δ Σ_{j=1}^m u_j`` and ``D_low = 2Δ² Σ_{j=1}^m (2j - 1) u_j``.
* Tightness (Thms 6, 7, reconstructed statements): the limits of the ratios
  ``V_low/V_up`` and ``D_low/D_up`` as ``δ → 0`` or ``ε → 0``.

Numerics. ``u_j`` is the truncated Laplacian tail ``T(jΔ)``, so
``V_up - V_low = 2 Σ_j ∫_{(j-1)Δ}^{jΔ} (T(t) - T(jΔ)) dt + 2 ∫_{mΔ}^{A} T`` is a sum of
positive terms, evaluated in closed form without cancellation (likewise for
``D`` with weight ``2t``). The lower bound is taken as ``upper - gap`` where the
gap is less than half of the upper bound (small ε) and from the direct
geometric sums otherwise (large ε, where the bound is weak).
"""

from __future__ import annotations

from math import factorial

import numpy as np
from scipy import optimize

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms.truncated_laplace import (
    calibrate_truncated_laplace,
    truncated_laplace_amplitude,
    truncated_laplace_power,
)
from dpreplication.validation import positive, positive_array, privacy_delta

_DELTA = parameter_entries(
    """
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (``ValueError`` otherwise).
    """
)
_BOUND_PARAMETERS = {
    **_DELTA,
    **parameter_entries(
        """
        epsilon : float or array_like
            Privacy budget, ε > 0; broadcast with ``delta``.
        sensitivity : float
            Sensitivity Δ > 0 of the query.
        """
    ),
}
_LIMIT_PARAMETERS = {
    **_DELTA,
    **parameter_entries(
        """
        epsilon : float or array_like
            Privacy budget, ε > 0 and finite (``ValueError`` otherwise).
        sensitivity : float
            Sensitivity Δ > 0 (finite) of the query.
        """
    ),
}

_SERIES_SWITCH = 0.5
_SERIES_TERMS = 24
_EXP_REMAINDER = np.array([0.0] + [1.0 / factorial(k + 1) for k in range(1, _SERIES_TERMS)])
_EXP_FIRST_MOMENT = np.array([0.0] + [1.0 / (factorial(k) * (k + 2)) for k in range(1, _SERIES_TERMS)])
_EXP_TAYLOR_TAIL = np.array([0.0, 0.0] + [(-1.0) ** k / factorial(k) for k in range(2, _SERIES_TERMS)])


def _mean_excess(y: np.ndarray) -> np.ndarray:
    """``i0(y) = ∫_0^1 (e^{yu} - 1) du = (e^y - 1 - y)/y`` (series below 0.5)."""
    small = np.minimum(y, _SERIES_SWITCH)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        closed = (np.expm1(y) - y) / y
    return np.where(y < _SERIES_SWITCH, np.polynomial.polynomial.polyval(small, _EXP_REMAINDER), closed)


def _first_moment_excess(y: np.ndarray) -> np.ndarray:
    """``i1(y) = ∫_0^1 u (e^{yu} - 1) du = (e^y (y - 1) + 1)/y² - ½`` (series below 0.5)."""
    small = np.minimum(y, _SERIES_SWITCH)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        closed = (np.exp(y) * (y - 1.0) + 1.0) / y**2 - 0.5
    return np.where(y < _SERIES_SWITCH, np.polynomial.polynomial.polyval(small, _EXP_FIRST_MOMENT), closed)


def _exp_taylor_remainder(t: np.ndarray) -> np.ndarray:
    """``ψ(t) = e^{-t} - 1 + t ≥ 0`` (series below 0.5)."""
    small = np.minimum(t, _SERIES_SWITCH)
    return np.where(t < _SERIES_SWITCH, np.polynomial.polynomial.polyval(small, _EXP_TAYLOR_TAIL), np.expm1(-t) + t)


def _tail_sums(eps: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``S0 = Σ_{j=1}^m q^j`` and ``S1 = Σ_{j=1}^m j q^j``, ``q = e^{-ε}``, without cancellation.

    ``S1 = q M / (1 - q)²`` with ``M = 1 - (m+1)q^m + m q^{m+1} = mψ(ε) - ψ(mε) + m(1 - q)(1 - q^m)``.
    """
    one_minus_q = -np.expm1(-eps)
    one_minus_qm = -np.expm1(-m * eps)
    s0 = np.exp(-eps) * one_minus_qm / one_minus_q
    numerator = m * _exp_taylor_remainder(eps) - _exp_taylor_remainder(m * eps) + m * one_minus_q * one_minus_qm
    s1 = np.exp(-eps) * numerator / one_minus_q**2
    return s0, s1


_EXPLICIT_BLOCKS = 64


def _direct_sums(eps, c, n, m, s0, s1) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_{j≤m} u_j`` and ``Σ_{j≤m} (2j - 1) u_j``, ``u_j = (½ + c) e^{-jε} - c``.

    For ``m ≤ 64`` the terms are summed one by one as
    ``u_j = (½ + c) e^{-jε} (1 - e^{-(n - j)ε})`` (no cancellation even when
    ``c ≫ u_j``, i.e. ε → 0 with δ near ½); otherwise the geometric closed
    forms ``(½ + c) S₀ - c m`` and ``(½ + c)(2S₁ - S₀) - c m²`` are used
    (then ε is large and ``c`` small).
    """
    j = np.arange(1, _EXPLICIT_BLOCKS + 1)
    shape = np.shape(eps)
    eps_, c_, n_, m_ = (np.reshape(v, shape + (1,)) for v in (eps, c, n, m))
    terms = (0.5 + c_) * np.exp(-j * eps_) * -np.expm1(-np.maximum(n_ - j, 0.0) * eps_)
    terms = np.where(j <= m_, terms, 0.0)
    explicit_plain = terms.sum(axis=-1)
    explicit_weighted = (terms * (2 * j - 1)).sum(axis=-1)
    closed_plain = (0.5 + c) * s0 - c * m
    closed_weighted = (0.5 + c) * (2.0 * s1 - s0) - c * m**2
    few = m <= _EXPLICIT_BLOCKS
    return np.where(few, explicit_plain, closed_plain), np.where(few, explicit_weighted, closed_weighted)


def _lower_bound_terms(epsilon, delta, sensitivity):
    cal = calibrate_truncated_laplace(epsilon, delta, sensitivity)
    eps, c, n = cal.epsilon, cal.c, cal.n
    m = np.floor(n)
    w = n - m
    s0, s1 = _tail_sums(eps, m)
    return cal, eps, c, n, m, w, s0, s1


@shared_parameters(_BOUND_PARAMETERS)
def amplitude_upper_bound(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """``V_up = (Δ/ε)[1 - (2δ/(e^ε - 1)) ln(1 + (e^ε - 1)/(2δ))]`` (eq. 5, Thm 2).

    ``E|X|`` of the (ε, δ)-DP truncated Laplacian.

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    return truncated_laplace_amplitude(epsilon, delta, sensitivity)


@shared_parameters(_BOUND_PARAMETERS)
def power_upper_bound(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """``D_up = 2λ² - (2δ/(e^ε - 1))(A² + 2λA)`` (eq. 7, Thm 3): E X² of the truncated Laplacian.

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    return truncated_laplace_power(epsilon, delta, sensitivity)


@shared_parameters(_LIMIT_PARAMETERS)
def amplitude_upper_bound_joint_limit(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Eq. (6), reconstructed: ``V_up ≈ (Δ/ε)[1 - (2δ/ε) ln(1 + ε/(2δ))]`` as ``(ε, δ) → (0, 0)``.

    ``= Θ(min(Δ/ε, Δ/δ))``; relative error 3e-5 at ``ε = 1e-3, δ = 1e-5``.

    Parameters
    ----------
    epsilon : float or array_like
        ε > 0 and finite; the approximation is for small ε.
    delta : float or array_like
        δ > 0 and finite; the approximation is for small δ.
    {sensitivity}
    """
    eps = positive_array("epsilon", epsilon)
    ratio = eps / (2.0 * positive_array("delta", delta))
    return (positive("sensitivity", sensitivity) / eps * -np.expm1(np.log(np.log1p(ratio)) - np.log(ratio)))[()]


@shared_parameters(_BOUND_PARAMETERS)
def amplitude_lower_bound(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Reconstructed lower bound ``V_low = 2Δ[(½ + c)(1 - e^{-mε})/(e^ε - 1) - c m]`` (spec eq. ``11*``).

    ``c = δ/(e^ε - 1)``, ``m = ⌊n⌋``. **Reconstructed** (spec §5), not the
    paper's verbatim eq. (11); it shares the limits of Thm 6. If ``n`` is an
    integer, ``V_up - V_low = Δ(1/ε - 1/(e^ε - 1))`` exactly. Valid for
    ``ε > 0``, ``0 < δ < ½``.

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    cal, eps, c, n, m, w, s0, s1 = _lower_bound_terms(epsilon, delta, sensitivity)
    scale = 2.0 * cal.sensitivity
    gap = scale * ((0.5 + c) * s0 * _mean_excess(eps) + c * w * _mean_excess(eps * w))
    upper = truncated_laplace_amplitude(cal.epsilon, cal.delta, cal.sensitivity)
    direct = scale * _direct_sums(eps, c, n, m, s0, s1)[0]
    return np.where(gap <= 0.5 * upper, upper - gap, np.maximum(direct, 0.0))[()]


@shared_parameters(_BOUND_PARAMETERS)
def power_lower_bound(epsilon, delta, sensitivity: float = 1.0) -> np.ndarray:
    """Reconstructed lower bound ``D_low = 2Δ²[(½ + c)(2S₁ - S₀) - c m²]`` (spec eq. 12*).

    ``S₀ = Σ_{j≤m} e^{-jε}``, ``S₁ = Σ_{j≤m} j e^{-jε}``. **Reconstructed**
    (spec §5), not the paper's verbatim eq. (12); shares the limits of Thm 7.

    Parameters
    ----------
    {epsilon, delta, sensitivity}
    """
    cal, eps, c, n, m, w, s0, s1 = _lower_bound_terms(epsilon, delta, sensitivity)
    scale = 2.0 * cal.sensitivity**2
    blocks = (0.5 + c) * 2.0 * (_mean_excess(eps) * s1 - _first_moment_excess(eps) * s0)
    tail = 2.0 * c * (n * w * _mean_excess(eps * w) - w**2 * _first_moment_excess(eps * w))
    gap = scale * (blocks + tail)
    upper = truncated_laplace_power(cal.epsilon, cal.delta, cal.sensitivity)
    direct = scale * _direct_sums(eps, c, n, m, s0, s1)[1]
    return np.where(gap <= 0.5 * upper, upper - gap, np.maximum(direct, 0.0))[()]


# --------------------------------------------------------------------------- tightness (Thms 6, 7)


@shared_parameters(_BOUND_PARAMETERS)
def amplitude_bound_ratio(epsilon, delta) -> np.ndarray:
    """``V_low/V_up`` (Δ-free); → 1 in every regime of Thm 6 except ``δ → 0`` at fixed ε.

    Parameters
    ----------
    {epsilon, delta}
    """
    return (amplitude_lower_bound(epsilon, delta) / amplitude_upper_bound(epsilon, delta))[()]


@shared_parameters(_BOUND_PARAMETERS)
def power_bound_ratio(epsilon, delta) -> np.ndarray:
    """``D_low/D_up`` (Δ-free); → 1 in the regimes of Thm 7.

    Parameters
    ----------
    {epsilon, delta}
    """
    return (power_lower_bound(epsilon, delta) / power_upper_bound(epsilon, delta))[()]


@shared_parameters(_LIMIT_PARAMETERS)
def amplitude_lower_bound_small_delta_limit(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """Thm 6.1: ``V_low → Δ/(e^ε - 1)`` as ``δ → 0`` (while ``V_up → Δ/ε``).

    Parameters
    ----------
    {epsilon, sensitivity}
    """
    return (positive("sensitivity", sensitivity) / np.expm1(positive_array("epsilon", epsilon)))[()]


@shared_parameters(_LIMIT_PARAMETERS)
def power_lower_bound_small_delta_limit(epsilon, sensitivity: float = 1.0) -> np.ndarray:
    """Thm 7.1: ``D_low → Δ²(e^ε + 1)/(e^ε - 1)²`` as ``δ → 0`` (while ``D_up → 2Δ²/ε²``).

    Parameters
    ----------
    {epsilon, sensitivity}
    """
    eps = positive_array("epsilon", epsilon)
    return (positive("sensitivity", sensitivity) ** 2 * (np.exp(eps) + 1.0) / np.expm1(eps) ** 2)[()]


@shared_parameters(_LIMIT_PARAMETERS)
def amplitude_ratio_small_delta_limit(epsilon) -> np.ndarray:
    """Thm 6.1: ``V_low/V_up → ε/(e^ε - 1)`` as ``δ → 0`` (→ 1 as ε → 0).

    Parameters
    ----------
    {epsilon}
    """
    eps = positive_array("epsilon", epsilon)
    return (eps / np.expm1(eps))[()]


@shared_parameters(_LIMIT_PARAMETERS)
def power_ratio_small_delta_limit(epsilon) -> np.ndarray:
    """Thm 7.1: ``D_low/D_up → ε²(e^ε + 1)/(2(e^ε - 1)²)`` as ``δ → 0`` (→ 1 as ε → 0).

    Parameters
    ----------
    {epsilon}
    """
    eps = positive_array("epsilon", epsilon)
    return (eps**2 * (np.exp(eps) + 1.0) / (2.0 * np.expm1(eps) ** 2))[()]


@shared_parameters(_LIMIT_PARAMETERS)
def amplitude_lower_bound_small_epsilon_limit(delta, sensitivity: float = 1.0) -> np.ndarray:
    """Thm 6.2: ``lim_{ε→0} V_low = 2Δδ(mn - m(m+1)/2)``, ``n = 1/(2δ)``, ``m = ⌊n⌋``.

    Equals ``Δ/(4δ) - Δ/2`` when ``1/(2δ)`` is an integer (the spec's statement).

    Parameters
    ----------
    {delta, sensitivity}
    """
    dlt = privacy_delta(delta, delta_max=0.5)
    n = 0.5 / dlt
    m = np.floor(n)
    return (2.0 * positive("sensitivity", sensitivity) * dlt * (m * n - m * (m + 1) / 2.0))[()]


@shared_parameters(_LIMIT_PARAMETERS)
def power_lower_bound_small_epsilon_limit(delta, sensitivity: float = 1.0) -> np.ndarray:
    """Thm 7.2: ``lim_{ε→0} D_low = 2Δ²δ Σ_{j≤m} (2j - 1)(n - j)``, ``n = 1/(2δ)``.

    Equals ``Δ²(2n - 1)(n - 1)/6`` when ``n`` is an integer (the spec's statement).

    Parameters
    ----------
    {delta, sensitivity}
    """
    dlt = privacy_delta(delta, delta_max=0.5)
    n = 0.5 / dlt
    m = np.floor(n)
    weighted = n * m**2 - (m * (m + 1) * (2 * m + 1) / 3.0 - m * (m + 1) / 2.0)
    return (2.0 * positive("sensitivity", sensitivity) ** 2 * dlt * weighted)[()]


@shared_parameters(_BOUND_PARAMETERS)
def amplitude_ratio_small_epsilon_limit(delta) -> np.ndarray:
    """Thm 6.2: ``V_low/V_up → 1 - 2δ`` as ``ε → 0`` (exact when ``1/(2δ)`` is an integer).

    Parameters
    ----------
    {delta}
    """
    return (1.0 - 2.0 * privacy_delta(delta, delta_max=0.5))[()]


@shared_parameters(_BOUND_PARAMETERS)
def power_ratio_small_epsilon_limit(delta) -> np.ndarray:
    """Thm 7.2: ``D_low/D_up → (1 - δ)(1 - 2δ)`` as ``ε → 0`` (exact when ``1/(2δ)`` is an integer).

    Parameters
    ----------
    {delta}
    """
    dlt = privacy_delta(delta, delta_max=0.5)
    return ((1.0 - dlt) * (1.0 - 2.0 * dlt))[()]


def floor_n_crossings(delta: float, epsilon_range: tuple[float, float]) -> list[tuple[int, float]]:
    """``(k, ε_k)`` for each integer ``k`` that ``n(ε) = (1/ε) ln(1 + (e^ε − 1)/(2δ))`` crosses on ``epsilon_range``.

    There ``m = ⌊n⌋`` steps from ``k`` to ``k − 1``, so the reconstructed lower
    bounds (eqs. ``11*``, ``12*``) are continuous but not smooth in ε. ``ε_k`` by Brent's method to 1e-14.

    Parameters
    ----------
    delta : float
        Privacy parameter, 0 < δ < ½.
    epsilon_range : tuple of float
        ``(lo, hi)`` with ``0 < lo < hi``.

    Returns
    -------
    list of tuple of (int, float)
        ``(k, ε_k)`` in increasing ``k``; empty if ``⌊n⌋`` is constant on the range.
    """
    lo, hi = (float(e) for e in epsilon_range)

    def n_of(epsilon):
        return float(calibrate_truncated_laplace(epsilon, delta).n)

    n_values = (n_of(lo), n_of(hi))
    return [
        (k, optimize.brentq(lambda e: n_of(e) - k, lo, hi, xtol=1e-14, rtol=1e-14))
        for k in range(int(np.floor(min(n_values))) + 1, int(np.floor(max(n_values))) + 1)
    ]
