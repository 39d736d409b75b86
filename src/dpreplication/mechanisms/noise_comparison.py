"""The truncated Laplacian against the analytic Gaussian at the same (ε, δ) (Geng et al., Figs 2–3).

The paper's central quantities are the cost ratios

* ``R_V = V_up / (σ_aG √(2/π))``: the truncated Laplacian's noise amplitude ``E|X|`` (eq. 5) over
  the analytic Gaussian's, and
* ``R_D = D_up / σ_aG²``: the same for the noise power ``E X²`` (eq. 7),

with ``σ_aG`` the smallest σ whose Gaussian is (ε, δ)-DP (Balle & Wang 2018, Thm 8). Both ratios
are free of the sensitivity Δ; below 1 the truncated Laplacian adds less noise. As ε → 0 at fixed δ,
``V_up → Δ/(4δ)``, ``D_up → Δ²/(12δ²)`` and ``σ_aG → Δ/(2z)`` with ``z = Φ⁻¹((1 + δ)/2)``, so the
ratios tend to ``√(π/2) z/(2δ)`` and ``z²/(3δ²)``, which tend to π/4 and π/6 as δ → 0.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms.truncated_laplace import truncated_laplace_amplitude, truncated_laplace_power
from dpreplication.validation import privacy_delta

_PARAMETERS = parameter_entries(
    """
    epsilon : float or array_like
        Privacy budget, ε > 0; broadcast with ``delta``.
    delta : float or array_like
        Privacy parameter, 0 < δ < ½ (the truncated Laplacian's range; ``ValueError`` otherwise).
    """
)

AMPLITUDE_RATIO_DOUBLE_LIMIT = np.pi / 4.0
"""``lim_{δ→0} lim_{ε→0} R_V``."""

POWER_RATIO_DOUBLE_LIMIT = np.pi / 6.0
"""``lim_{δ→0} lim_{ε→0} R_D``."""


@shared_parameters(_PARAMETERS)
def noise_costs(epsilon, delta, sensitivity: float = 1.0) -> dict[str, np.ndarray]:
    """Amplitude and power of both mechanisms calibrated to (ε, δ), and their ratios ``R_V``, ``R_D``.

    Keys: ``truncated_laplace_amplitude``, ``truncated_laplace_power``, ``analytic_gaussian_sigma``,
    ``analytic_gaussian_amplitude``, ``analytic_gaussian_power``, ``amplitude_ratio``,
    ``power_ratio``; each a 1-D array over the broadcast ``epsilon``, ``delta``. Both mechanisms are
    (ε, δ)-DP: the truncated Laplacian by Geng et al.'s Theorem 1, the analytic Gaussian by Balle &
    Wang's Theorem 8; amplitudes by eq. 5, powers by eq. 7.

    Parameters
    ----------
    {epsilon, delta}
    sensitivity : float
        Sensitivity Δ > 0 of the query (the ratios do not depend on it).

    Returns
    -------
    dict of str to ndarray
        The seven 1-D arrays named above.
    """
    sigma = np.atleast_1d(add.analytic_gaussian_sigma(epsilon, delta, sensitivity))
    amplitude = np.atleast_1d(truncated_laplace_amplitude(epsilon, delta, sensitivity))
    power = np.atleast_1d(truncated_laplace_power(epsilon, delta, sensitivity))
    return {
        "truncated_laplace_amplitude": amplitude,
        "truncated_laplace_power": power,
        "analytic_gaussian_sigma": sigma,
        "analytic_gaussian_amplitude": np.atleast_1d(add.gaussian_amplitude(sigma)),
        "analytic_gaussian_power": np.atleast_1d(add.gaussian_power(sigma)),
        "amplitude_ratio": amplitude / add.gaussian_amplitude(sigma),
        "power_ratio": power / add.gaussian_power(sigma),
    }


@shared_parameters(_PARAMETERS)
def amplitude_ratio(epsilon, delta) -> np.ndarray:
    """``R_V = V_up / (σ_aG √(2/π))`` (Fig. 2): truncated-Laplacian over analytic-Gaussian amplitude.

    Parameters
    ----------
    {epsilon, delta}

    Returns
    -------
    float or ndarray
        ``R_V`` (eq. 5 over ``σ_aG √(2/π)``), a numpy scalar for scalar input; below 1 the
        truncated Laplacian's amplitude is smaller.

    Examples
    --------
    >>> from dpreplication.mechanisms import amplitude_ratio
    >>> round(float(amplitude_ratio(1.0, 1e-6)), 5)
    0.29666
    """
    return (
        truncated_laplace_amplitude(epsilon, delta)
        / add.gaussian_amplitude(add.analytic_gaussian_sigma(epsilon, delta))
    )[()]


@shared_parameters(_PARAMETERS)
def power_ratio(epsilon, delta) -> np.ndarray:
    """``R_D = D_up / σ_aG²`` (Fig. 3): truncated-Laplacian over analytic-Gaussian power.

    Parameters
    ----------
    {epsilon, delta}

    Returns
    -------
    float or ndarray
        ``R_D`` (eq. 7 over ``σ_aG²``), a numpy scalar for scalar input.
    """
    power = truncated_laplace_power(epsilon, delta)
    return (power / add.gaussian_power(add.analytic_gaussian_sigma(epsilon, delta)))[()]


RATIOS = {"amplitude": amplitude_ratio, "power": power_ratio}
"""``R_V`` and ``R_D`` by the name of the cost they compare."""


def amplitude_ratio_epsilon_limit(delta) -> np.ndarray:
    """``lim_{ε→0} R_V = √(π/2) z/(2δ)``, ``z = Φ⁻¹((1 + δ)/2)``.

    From ``V_up → Δ/(4δ)`` (eq. 5) and ``σ_aG → Δ/(2z)`` (module docstring).

    Parameters
    ----------
    delta : float or array_like
        0 < δ < ½, the range of ``R_V`` (``ValueError`` otherwise).
    """
    dlt = privacy_delta(delta, delta_max=0.5)
    z = special.ndtri((1.0 + dlt) / 2.0)
    return (np.sqrt(np.pi / 2.0) * z / (2.0 * dlt))[()]


def power_ratio_epsilon_limit(delta) -> np.ndarray:
    """``lim_{ε→0} R_D = z²/(3δ²)``, ``z = Φ⁻¹((1 + δ)/2)``.

    From ``D_up → Δ²/(12δ²)`` (eq. 7) and ``σ_aG → Δ/(2z)`` (module docstring).

    Parameters
    ----------
    delta : float or array_like
        0 < δ < ½, the range of ``R_D`` (``ValueError`` otherwise).
    """
    dlt = privacy_delta(delta, delta_max=0.5)
    z = special.ndtri((1.0 + dlt) / 2.0)
    return (z**2 / (3.0 * dlt**2))[()]


def max_ratio_over_epsilon(
    quantity: str, delta: float, log10_epsilon_range=(-4.0, 2.0), n_grid: int = 241
) -> tuple[float, float]:
    """``(argmax ε, max_ε R(ε, δ))`` for ``quantity`` "amplitude" (R_V) or "power" (R_D).

    Grid search over ``log10 ε`` in the range, then bounded Brent refinement
    between the neighbours of the best grid point (spec §10 check 8: 0.8987 at
    ε ≈ 0.336 and 0.7681 at ε ≈ 0.557 for δ = 0.1). A maximum at either end of the grid is
    returned unrefined.

    Parameters
    ----------
    quantity : {"amplitude", "power"}
        Which ratio: ``R_V`` (eq. 5, Fig. 2) or ``R_D`` (eq. 7, Fig. 3).
    delta : float
        0 < δ < ½.
    log10_epsilon_range : tuple of float
        ``(lo, hi)`` of the grid on ``log10 ε``, ``lo < hi``.
    n_grid : int
        Number of grid points, ``n_grid ≥ 1``; the Brent refinement needs ``n_grid ≥ 3``.

    Returns
    -------
    tuple of float
        ``(ε*, R(ε*, δ))``.
    """
    ratio = RATIOS[quantity]
    log_eps = np.linspace(*log10_epsilon_range, n_grid)
    values = ratio(10.0**log_eps, delta)
    best = int(np.argmax(values))
    lo, hi = log_eps[max(best - 1, 0)], log_eps[min(best + 1, n_grid - 1)]
    if best in (0, n_grid - 1):
        return float(10.0 ** log_eps[best]), float(values[best])
    result = optimize.minimize_scalar(
        lambda t: -float(ratio(10.0**t, delta)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-7}
    )
    return float(10.0**result.x), float(-result.fun)


def break_even_delta(quantity: str, log10_epsilon_range) -> tuple[float, float]:
    """``(δ, argmax ε)``: the smallest δ at which ``max_ε R(ε, δ)`` reaches 1.

    Brent's method on δ ∈ [0.3, 0.499]; above it the analytic Gaussian beats the truncated
    Laplacian at some ε. ``ValueError`` if ``max_ε R − 1`` does not change sign on that bracket.

    Parameters
    ----------
    quantity : {"amplitude", "power"}
        Which ratio: ``R_V`` (eq. 5) or ``R_D`` (eq. 7).
    log10_epsilon_range : tuple of float
        ``(lo, hi)`` of the ``log10 ε`` grid of :func:`max_ratio_over_epsilon`, ``lo < hi``.

    Returns
    -------
    tuple of float
        ``(δ, ε*)``: the break-even δ and the ε at which ``R(ε, δ)`` peaks there.
    """

    def excess(delta):
        return max_ratio_over_epsilon(quantity, delta, log10_epsilon_range)[1] - 1.0

    delta = optimize.brentq(excess, 0.3, 0.499, xtol=1e-6)
    return delta, max_ratio_over_epsilon(quantity, delta, log10_epsilon_range)[0]
