"""Rényi-DP accounting: DP-SGD's sampled Gaussian mechanism and GNMax's Gaussian noise.

* Sampled Gaussian mechanism (Mironov, Talwar & Zhang 2019, §3.3): one DP-SGD step with
  Poisson sampling rate ``q`` and noise multiplier ``σ`` is ``(α, ε_α)``-RDP for integer
  ``α ≥ 2`` with ``ε_α = log A_α / (α − 1)``,
  ``A_α = Σ_{k=0}^{α} C(α, k) (1 − q)^{α−k} q^k exp((k² − k) / (2σ²))``, and ``T`` steps
  compose to ``T ε_α`` (evaluated as a log-sum-exp, no overflow).
* RDP to ``(ε, δ)``-DP (Balle et al. 2020, Thm. 21; the conversion Opacus uses):
  ``ε = min_α T ε_α + log((α − 1)/α) − (log δ + log α)/(α − 1)``.
* GNMax (Papernot et al. 2018), data-independent bound (spec §3): Gaussian noise ``N(0, σ²)``
  on every vote count is ``(λ, λ/σ²)``-RDP, so ``(λ/σ² + log(1/δ)/(λ − 1), δ)``-DP; the
  smallest σ reaching ``(ε, δ)`` is ``σ²(λ) = λ / (ε − log(1/δ)/(λ − 1))`` minimised over
  ``λ ∈ {λ_min, λ_min + 1, …} < 500`` with ``λ_min = log(1/δ)/ε + 4`` (the authors' grid).

The integer orders give a bound at least as large as any finer grid's minimum at those
orders; Opacus' :class:`~opacus.accountants.RDPAccountant` evaluates the same ``ε_α`` (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.validation import RAISES, in_unit_interval, non_negative, non_negative_array, positive

DEFAULT_ORDERS = np.arange(2, 1001)
"""Integer RDP orders ``α``; for σ = 10 and q ≈ 1/32 the optimum is far inside (α* ≈ 150–200)."""

_PARAMETERS = parameter_entries(
    """
    sample_rate : float, 0 < q ≤ 1
        Poisson sampling rate ``q``.
    noise_multiplier : float, σ > 0
        Noise standard deviation over the clipping norm.
    orders : array_like of int, each ≥ 2
        Integer RDP orders ``α`` (default :data:`DEFAULT_ORDERS`).
    delta : float, 0 < δ < 1
        Target δ.
    target_epsilon : float, ε > 0 and finite
        The ε to reach.
    epsilon : float, ε > 0 and finite
        Target ε.
    max_order : float, > λ_min
        The orders stop below it.
    order_offset : float, > 1
        ``λ_min − log(1/δ)/ε``.
    """
)


def _delta(delta) -> float:
    """δ of an ``(ε, δ)`` conversion: ``0 < δ < 1`` (δ ≥ 1 would give a meaningless, even negative, ε)."""
    return in_unit_interval("delta", delta, include_zero=False)


def _steps_at_rate(sample_rate, steps) -> None:
    """Check ``0 < q ≤ 1`` and ``T ≥ 1`` (finite) of a calibration; ``ValueError`` naming the argument otherwise."""
    in_unit_interval("sample_rate", sample_rate, include_zero=False, include_one=True)
    if not non_negative("steps", steps) >= 1:
        raise ValueError(f"steps must be ≥ 1, got {steps!r}")


def _sampled_gaussian(sample_rate, noise_multiplier, steps) -> None:
    """Check ``0 < q ≤ 1``, ``σ > 0`` and ``T ≥ 0`` (all finite); ``ValueError`` naming the argument otherwise."""
    in_unit_interval("sample_rate", sample_rate, include_zero=False, include_one=True)
    positive("noise_multiplier", noise_multiplier)
    non_negative("steps", steps)


@shared_parameters(_PARAMETERS)
def sampled_gaussian_rdp(sample_rate: float, noise_multiplier: float, steps: int, orders=DEFAULT_ORDERS) -> np.ndarray:
    """``T ε_α`` of ``steps`` sampled-Gaussian steps at integer ``orders`` (module docstring).

    Mironov, Talwar & Zhang (2019), §3.3: the closed form for integer orders, under add/remove-one
    neighbours.

    Parameters
    ----------
    {sample_rate, noise_multiplier}
    steps : int, T ≥ 0
        Number of steps ``T``.
    {orders}

    Returns
    -------
    numpy.ndarray
        ``T ε_α`` at each order.

    Raises
    ------
    ValueError
        If an order is not an integer ≥ 2, or ``q``, ``σ`` or ``T`` is out of range (NaN included).
    """
    orders = np.asarray(orders)
    if np.any(orders < 2) or np.any(orders != np.round(orders)):
        raise ValueError("the exact sampled-Gaussian RDP needs integer orders α ≥ 2")
    _sampled_gaussian(sample_rate, noise_multiplier, steps)
    q, sigma = float(sample_rate), float(noise_multiplier)
    if q == 1.0:
        return steps * orders / (2.0 * sigma**2)
    alpha = orders.astype(float)[:, None]
    k = np.arange(int(orders.max()) + 1, dtype=float)[None, :]
    valid = k <= alpha
    log_terms = (
        special.gammaln(alpha + 1)
        - special.gammaln(k + 1)
        - special.gammaln(np.maximum(alpha - k, 0) + 1)
        + np.where(valid, alpha - k, 0.0) * np.log1p(-q)
        + k * np.log(q)
        + (k * k - k) / (2.0 * sigma**2)
    )
    log_a = special.logsumexp(np.where(valid, log_terms, -np.inf), axis=1)
    return steps * log_a / (orders - 1.0)


@shared_parameters(_PARAMETERS)
def rdp_to_epsilon(rdp, orders, delta: float) -> tuple[float, float]:
    """``(ε, α*)``: the tightest ``(ε, δ)`` over ``orders`` by Balle et al. (2020), Thm. 21.

    ``ε = min_α rdp_α + log((α − 1)/α) − (log δ + log α)/(α − 1)`` (module docstring).

    Parameters
    ----------
    rdp : array_like of float, ≥ 0 (∞ allowed)
        RDP ``ε_α`` (already composed) at each order.
    orders : array_like of float, each > 1
        The orders ``α`` of ``rdp``, increasing.
    {delta}

    Returns
    -------
    tuple of float
        ``(ε, α*)``: the bound and the order that attains it.

    Raises
    ------
    ValueError
        If ``δ`` is not in ``(0, 1)``, an order is not ``> 1``, an RDP value is negative or NaN
        (either would lower ε), or the optimum sits on the largest order (widen the grid).
    """
    _delta(delta)
    orders = np.asarray(orders, dtype=float)
    if not np.all(orders > 1):
        raise ValueError(f"RDP orders must all be > 1, got {orders!r}")
    rdp = non_negative_array("rdp", rdp, allow_infinity=True)
    epsilon = np.asarray(rdp) + np.log1p(-1.0 / orders) - (np.log(delta) + np.log(orders)) / (orders - 1.0)
    best = int(np.argmin(epsilon))
    if best == orders.size - 1 and orders.size > 1:
        raise ValueError(f"the optimal RDP order is the largest one ({orders[-1]:g}); extend the orders")
    return float(epsilon[best]), float(orders[best])


@shared_parameters(_PARAMETERS, RAISES)
def dp_sgd_epsilon(
    noise_multiplier: float, sample_rate: float, steps: int, delta: float, orders=DEFAULT_ORDERS
) -> float:
    """ε of ``steps`` DP-SGD steps (Poisson rate ``q``, noise multiplier ``σ``) at ``δ``.

    :func:`sampled_gaussian_rdp` converted by :func:`rdp_to_epsilon`; 0 for no steps.

    Parameters
    ----------
    {noise_multiplier, sample_rate}
    steps : int, T ≥ 0
        Number of steps.
    {delta, orders}

    Returns
    -------
    float
        ε of the ``(ε, δ)``-DP guarantee (add/remove-one neighbours).

    {raises_out_of_range}

    Examples
    --------
    >>> from dpreplication.accounting import dp_sgd_epsilon
    >>> round(dp_sgd_epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=1000, delta=1e-5), 3)
    1.725
    """
    _sampled_gaussian(sample_rate, noise_multiplier, steps)
    _delta(delta)
    if steps == 0:
        return 0.0
    return rdp_to_epsilon(sampled_gaussian_rdp(sample_rate, noise_multiplier, steps, orders), orders, delta)[0]


@shared_parameters(_PARAMETERS)
def calibrate_steps(
    target_epsilon: float,
    delta: float,
    noise_multiplier: float,
    sample_rate: float,
    orders=DEFAULT_ORDERS,
    max_steps: int = 1_000_000,
) -> int:
    """Return the largest number of DP-SGD steps whose ε at ``δ`` is at most ``target_epsilon``.

    ε grows with the number of steps, so a bisection on ``T`` finds it exactly.

    Parameters
    ----------
    target_epsilon : float, ε > 0 and finite
        The ε not to exceed.
    {delta, noise_multiplier, sample_rate, orders}
    max_steps : int, ≥ 2
        The most steps searched: ``ValueError`` when ``max_steps + 1`` steps still fit.

    Returns
    -------
    int
        The largest ``T ≥ 1`` with ``ε(T) ≤ target_epsilon``.

    Raises
    ------
    ValueError
        If an argument lies outside its range (a NaN or infinite ``target_epsilon`` included), one
        step already exceeds ``target_epsilon``, or more than ``max_steps`` steps fit.
    """
    positive("target_epsilon", target_epsilon)
    _delta(delta)
    if not max_steps >= 2:
        raise ValueError(f"max_steps must be ≥ 2, got {max_steps!r}")
    per_step = sampled_gaussian_rdp(sample_rate, noise_multiplier, 1, orders)

    def epsilon(steps):
        return rdp_to_epsilon(steps * per_step, orders, delta)[0]

    if not epsilon(1) <= target_epsilon:
        raise ValueError(f"even one step exceeds ε = {target_epsilon} (σ = {noise_multiplier}, q = {sample_rate})")
    low, high = 1, 2
    while epsilon(high) <= target_epsilon:
        if high > max_steps:
            raise ValueError(f"more than {max_steps} steps fit in ε = {target_epsilon}")
        low, high = high, min(2 * high, max_steps + 1)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if epsilon(middle) <= target_epsilon else (low, middle)
    return low


@shared_parameters(_PARAMETERS)
def calibrate_noise_multiplier(
    target_epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    orders=DEFAULT_ORDERS,
    relative_tolerance: float = 1e-10,
) -> float:
    """Return the smallest noise multiplier σ whose ``steps`` DP-SGD steps have ε ≤ ``target_epsilon`` at ``δ``.

    ε decreases in σ, so a bracket found by doubling and Brent's method give the root of
    ``ε(σ) = target``; the returned σ is then nudged up (by ``relative_tolerance``) until its ε
    is at most the target, so the guarantee never exceeds the stated one.

    Parameters
    ----------
    {target_epsilon, delta, sample_rate}
    steps : int, T ≥ 1
        Number of steps.
    {orders}
    relative_tolerance : float, > 0
        Relative tolerance of Brent's method and of the upward nudges.

    Returns
    -------
    float
        σ with ``dp_sgd_epsilon(σ, …) ≤ target_epsilon``.

    Raises
    ------
    ValueError
        If an argument lies outside its range (NaN and infinities included), or when even
        σ = 2⁻³⁰ meets the target (no bracket with ε above it).
    """
    from scipy import optimize

    positive("target_epsilon", target_epsilon)
    _delta(delta)
    _steps_at_rate(sample_rate, steps)

    def excess(sigma):
        return dp_sgd_epsilon(sigma, sample_rate, steps, delta, orders) - target_epsilon

    low, high = 0.25, 0.5
    while excess(high) > 0:
        low, high = high, 2.0 * high
    while excess(low) <= 0:
        if low < 2.0**-30:
            raise ValueError(f"ε ≤ {target_epsilon} already at σ = {low:.3g}: no noise multiplier to calibrate")
        low, high = low / 2.0, low
    sigma = optimize.brentq(excess, low, high, rtol=relative_tolerance)
    while excess(sigma) > 0:
        sigma *= 1.0 + relative_tolerance
    return float(sigma)


@shared_parameters(_PARAMETERS, RAISES)
def opacus_noise_multiplier(
    target_epsilon: float, delta: float, sample_rate: float, steps: int, accountant: str = "prv"
) -> float:
    """σ that Opacus' ``get_noise_multiplier`` picks for ``(target_epsilon, δ)``: the authors' calibration [I].

    Opacus' default ε tolerance 0.01 (as ``make_private_with_epsilon`` uses), for ``steps`` steps at rate ``q``.

    Parameters
    ----------
    {target_epsilon, delta, sample_rate}
    steps : int, ≥ 1
        Number of steps.
    accountant : str
        Opacus accountant name: ``"prv"`` (Opacus' default) or ``"rdp"``.

    Returns
    -------
    float
        The noise multiplier σ.

    {raises_out_of_range}
    """
    import warnings

    from opacus.accountants.utils import get_noise_multiplier

    positive("target_epsilon", target_epsilon)
    _delta(delta)
    _steps_at_rate(sample_rate, steps)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(
            get_noise_multiplier(
                target_epsilon=target_epsilon,
                target_delta=delta,
                sample_rate=sample_rate,
                steps=int(steps),
                accountant=accountant,
            )
        )


@dataclass(frozen=True)
class GNMaxCalibration:
    """σ of GNMax for ``(ε, δ)`` by the data-independent RDP bound, and the order λ* it uses.

    Parameters
    ----------
    epsilon : float
        Target ε.
    delta : float
        Target δ.
    sigma : float
        The smallest σ over the grid of orders.
    order : float
        The order λ* that attains it.
    min_order : float
        ``λ_min``, the first order of the grid.
    """

    epsilon: float
    delta: float
    sigma: float
    order: float
    min_order: float


@shared_parameters(_PARAMETERS)
def gnmax_noise_scale(
    epsilon: float, delta: float, max_order: float = 500.0, order_offset: float = 4.0
) -> GNMaxCalibration:
    """Smallest σ with ``λ/σ² + log(1/δ)/(λ − 1) ≤ ε`` over ``λ = λ_min + j < max_order``.

    ``λ_min = log(1/δ)/ε + order_offset`` (the authors use ``+ 1 + 3``; spec §3). Every λ of
    the grid has ``ε − log(1/δ)/(λ − 1) > 0``, so every candidate σ is finite.
    Guarantee: GNMax with ``N(0, σ²)`` on every vote count is ``(ε, δ)``-DP (Papernot et al. 2018,
    data-independent RDP bound; module docstring).

    Parameters
    ----------
    {epsilon, delta, max_order, order_offset}

    Returns
    -------
    GNMaxCalibration
        σ, λ* and ``λ_min``.

    Examples
    --------
    >>> from dpreplication.accounting import gnmax_noise_scale
    >>> calibration = gnmax_noise_scale(epsilon=1.0, delta=1e-5)
    >>> round(calibration.sigma, 3), round(calibration.order, 2)
    (6.93, 24.51)
    """
    orders, variance = gnmax_variance_curve(epsilon, delta, max_order, order_offset)
    best = int(np.argmin(variance))
    return GNMaxCalibration(
        float(epsilon), float(delta), float(np.sqrt(variance[best])), float(orders[best]), float(orders[0])
    )


@shared_parameters(_PARAMETERS)
def gnmax_variance_curve(
    epsilon: float, delta: float, max_order: float = 500.0, order_offset: float = 4.0
) -> tuple[np.ndarray, np.ndarray]:
    """``(λ, σ²(λ))`` over ``λ = λ_min, λ_min + 1, … < max_order``.

    ``σ²(λ) = λ / (ε − log(1/δ)/(λ − 1))`` is the variance for which GNMax at order λ is
    ``(ε, δ)``-DP (spec §3; DaRRM's F10). :func:`gnmax_noise_scale` takes its minimum.

    Parameters
    ----------
    {epsilon, delta, max_order, order_offset}

    Returns
    -------
    tuple of numpy.ndarray
        The orders λ and the variances σ²(λ).

    Raises
    ------
    ValueError
        If ``ε`` or ``δ`` lies outside its range (NaN and infinities included), ``order_offset ≤ 1``,
        or ``λ_min ≥ max_order``.
    """
    positive("epsilon", epsilon)
    _delta(delta)
    if not order_offset > 1:
        raise ValueError(f"order_offset must be > 1, got {order_offset!r}")
    log_inverse_delta = np.log(1.0 / delta)
    min_order = log_inverse_delta / epsilon + order_offset
    orders = np.arange(min_order, max_order)
    if orders.size == 0:
        raise ValueError(f"λ_min = {min_order:.1f} is not below the largest order {max_order}")
    return orders, orders / (epsilon - log_inverse_delta / (orders - 1.0))


@shared_parameters(_PARAMETERS, RAISES)
def gnmax_epsilon(sigma: float, delta: float, order: float) -> float:
    """``ε = λ/σ² + log(1/δ)/(λ − 1)``: GNMax's data-independent guarantee at order λ.

    Parameters
    ----------
    sigma : float, σ > 0
        Standard deviation of the Gaussian noise on every vote count.
    {delta}
    order : float, λ > 1
        RDP order.

    Returns
    -------
    float
        ε of the ``(ε, δ)``-DP guarantee.

    {raises_out_of_range}
    """
    positive("sigma", sigma)
    _delta(delta)
    if not (order > 1 and np.isfinite(order)):
        raise ValueError(f"order must be > 1 and finite, got {order!r}")
    return float(order / sigma**2 + np.log(1.0 / delta) / (order - 1.0))


@shared_parameters(_PARAMETERS, RAISES)
def opacus_epsilon(
    noise_multiplier: float, sample_rate: float, steps: int, delta: float, accountant: str = "prv"
) -> float:
    """ε that an Opacus accountant reports for ``steps`` DP-SGD steps; for comparison with :func:`dp_sgd_epsilon` only.

    Parameters
    ----------
    {noise_multiplier, sample_rate}
    steps : int, ≥ 0
        Number of steps.
    {delta}
    accountant : str
        ``"prv"`` (Opacus' default and the authors' [I]) or ``"rdp"``.

    Returns
    -------
    float
        The accountant's ε.

    {raises_out_of_range}
    """
    import warnings

    from opacus.accountants import create_accountant

    _sampled_gaussian(sample_rate, noise_multiplier, steps)
    _delta(delta)

    engine = create_accountant(accountant)
    engine.history = [(float(noise_multiplier), float(sample_rate), int(steps))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(engine.get_epsilon(delta=delta))
