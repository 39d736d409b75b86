"""Independent references this package is checked against, each adapted in one place.

* Established DP libraries (the extra ``oracles``: dp-accounting, autodp, diffprivlib, OpenDP), each
  called through its public API and imported when called, so an absent library raises
  ``ImportError`` from the adapter and nowhere else. The cross-check tables of the truncated
  Laplacian replication and the tests both go through :data:`ORACLES`.
* The Gaussian mechanism's exact ``δ(σ)`` evaluated with 50 decimal digits (mpmath), the judge of
  every analytic-Gaussian calibration, whatever its own numerics.

All adapters take sensitivity Δ = 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpreplication.mechanisms import additive


def dp_accounting_gaussian_sigma(epsilon: float, delta: float) -> float:
    """Return dp-accounting's analytic-Gaussian σ: ``gaussian_mechanism.get_sigma_gaussian``.

    The exact δ(ε, σ) of Balle and Wang (2018) inverted by Brent's method (``scipy.optimize.brentq``,
    ``xtol`` 1e-12) after bracketing σ by factors of 10.
    """
    from dp_accounting import gaussian_mechanism

    return gaussian_mechanism.get_sigma_gaussian(epsilon, delta, tol=1e-12)


def dp_accounting_pld_gaussian_sigma(epsilon: float, delta: float) -> float:
    """dp-accounting's smallest Gaussian σ by its privacy-loss-distribution accountant (one query).

    ``GaussianPrivacyLoss.from_privacy_guarantee``: a binary search on the closed-form Gaussian
    δ(ε, σ) (no discretised PLD) that returns the upper end of its bracket (default tolerance 1e-7),
    so at least the exact σ.
    """
    from dp_accounting.pld import accountant, common

    return accountant.get_smallest_gaussian_noise(
        common.DifferentialPrivacyParameters(epsilon, delta), num_queries=1, sensitivity=1.0
    )


def autodp_gaussian_sigma(epsilon: float, delta: float) -> float:
    """Return autodp's analytic-Gaussian σ: ``privacy_calibrator.ana_gaussian_mech`` (tol 1e-12)."""
    import autodp.rdp_acct  # noqa: F401  (autodp 0.2.3.1 has a circular import; this order resolves it)
    from autodp import privacy_calibrator

    return privacy_calibrator.ana_gaussian_mech(epsilon, delta, tol=1e-12)["sigma"]


def diffprivlib_gaussian_sigma(epsilon: float, delta: float) -> float:
    """Return diffprivlib's analytic-Gaussian σ, read as ``√ GaussianAnalytic.variance(0)``."""
    from diffprivlib.mechanisms import GaussianAnalytic

    return math.sqrt(GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=1.0).variance(0.0))


def diffprivlib_truncated_laplace_bound(epsilon: float, delta: float) -> float:
    """Return the support half-width ``A`` of diffprivlib's ``LaplaceBoundedNoise`` (Geng et al.'s truncated Laplacian).

    diffprivlib exposes no public accessor for it (``variance`` raises NotImplementedError), so
    this one adapter reads the attribute ``_noise_bound`` that its first ``randomise`` call sets;
    :func:`diffprivlib_truncated_laplace_samples` checks the same law through the public API alone.
    """
    from diffprivlib.mechanisms import LaplaceBoundedNoise

    mechanism = LaplaceBoundedNoise(
        epsilon=epsilon, delta=delta, sensitivity=1.0, random_state=np.random.RandomState(0)
    )
    mechanism.randomise(0.0)
    return mechanism._noise_bound


def diffprivlib_truncated_laplace_samples(epsilon: float, delta: float, size: int, seed: int) -> np.ndarray:
    """``size`` draws of diffprivlib's ``LaplaceBoundedNoise.randomise(0)``, seeded with ``seed``."""
    from diffprivlib.mechanisms import LaplaceBoundedNoise

    mechanism = LaplaceBoundedNoise(
        epsilon=epsilon, delta=delta, sensitivity=1.0, random_state=np.random.RandomState(seed)
    )
    return np.array([mechanism.randomise(0.0) for _ in range(size)])


def opendp_gaussian_delta(sigma: float, epsilon: float) -> float:
    """OpenDP's δ at ``epsilon`` for the Gaussian mechanism with scale ``sigma``.

    Computed through its zCDP map (``make_zCDP_to_approxDP``): a valid but conservative
    conversion, so at least the exact δ.
    """
    import opendp.prelude as dp

    dp.enable_features("contrib")
    gaussian = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma)
    return dp.c.make_zCDP_to_approxDP(gaussian).map(1.0).delta(epsilon)


def gaussian_delta_high_precision(sigma: float, epsilon: float, digits: int = 50) -> float:
    """Return the exact δ(σ) of the Gaussian mechanism with sensitivity 1 at ``epsilon`` (Balle & Wang 2018, Thm 8).

    δ(σ) = ``Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)``, evaluated with ``digits`` decimal digits
    (mpmath), so the cancellation at small δ and large ε cannot fake a verdict.
    """
    import mpmath

    with mpmath.workdps(digits):
        s, e = mpmath.mpf(sigma), mpmath.mpf(epsilon)
        value = mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)
        return float(value)


@dataclass(frozen=True)
class Oracle:
    """One library call compared with this package: ``call(ε, δ)`` returns ``quantity``.

    ``quantity`` is ``analytic_gaussian_sigma``, ``truncated_laplace_bound`` or
    ``delta_at_analytic_gaussian_sigma`` (the δ a library assigns to this package's σ_aG(ε, δ)).
    """

    library: str
    function: str
    quantity: str
    call: Callable[[float, float], float]


def _opendp_delta_at_our_sigma(epsilon: float, delta: float) -> float:
    return opendp_gaussian_delta(float(additive.analytic_gaussian_sigma(epsilon, delta)), epsilon)


ORACLES = (
    Oracle(
        "dp-accounting",
        "gaussian_mechanism.get_sigma_gaussian",
        "analytic_gaussian_sigma",
        dp_accounting_gaussian_sigma,
    ),
    Oracle(
        "dp-accounting",
        "pld.accountant.get_smallest_gaussian_noise",
        "analytic_gaussian_sigma",
        dp_accounting_pld_gaussian_sigma,
    ),
    Oracle("autodp", "privacy_calibrator.ana_gaussian_mech", "analytic_gaussian_sigma", autodp_gaussian_sigma),
    Oracle(
        "diffprivlib", "mechanisms.GaussianAnalytic.variance", "analytic_gaussian_sigma", diffprivlib_gaussian_sigma
    ),
    Oracle(
        "diffprivlib",
        "mechanisms.LaplaceBoundedNoise._noise_bound",
        "truncated_laplace_bound",
        diffprivlib_truncated_laplace_bound,
    ),
    Oracle(
        "opendp",
        "make_zCDP_to_approxDP(make_gaussian).map(1).delta",
        "delta_at_analytic_gaussian_sigma",
        _opendp_delta_at_our_sigma,
    ),
)
"""Every library call of the truncated-Laplacian cross-check (spec E8), in table order."""

ANALYTIC_GAUSSIAN_CALIBRATIONS = tuple(
    o for o in ORACLES if o.quantity == "analytic_gaussian_sigma" and o.call is not dp_accounting_pld_gaussian_sigma
)
"""The libraries' analytic-Gaussian calibrations audited at high precision (spec E8b): the PLD
search is left out, being a discretised upper bound on σ by construction rather than a calibration."""
