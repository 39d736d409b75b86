"""Truncated Laplacian (Geng et al.): audits of the mechanism and of its Gaussian baseline.

Spec §9 extras E3, E4, E5 and E8. E3: Monte Carlo moments of the release function (and of
diffprivlib's sampler) against the closed forms; E4: the hockey-stick divergence by quadrature
against the exact profile; E5: the privacy profiles δ(ε') of the three mechanisms; E8: the
analytic-Gaussian σ and the support bound A against dp-accounting, autodp, diffprivlib and OpenDP
(through :mod:`dpreplication.oracles`), and every calibration judged by the exact δ(σ) at 50
digits. Random steps draw from the ``np.random.Generator`` passed in.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication import oracles
from dpreplication.accounting.hockey_stick import audit_noise_privacy
from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms import truncated_laplace as tl_mechanism
from dpreplication.replications.truncated_laplace.figures import MECHANISM_LABELS
from dpreplication.tables import DATA_STATUS_COLUMN


def _moment_rows(eps, dlt, sampler, samples, bound, amplitude, power):
    rows = []
    for moment, values, exact in (("amplitude", np.abs(samples), amplitude), ("power", samples**2, power)):
        estimate = float(values.mean())
        error = float(values.std(ddof=1) / np.sqrt(values.size))
        rows.append(
            {
                "epsilon": eps,
                "delta": dlt,
                "sampler": sampler,
                "moment": moment,
                "n_samples": values.size,
                "estimate": estimate,
                "standard_error": error,
                "exact": exact,
                "relative_error": estimate / exact - 1.0,
                "relative_standard_error": error / exact,
                "z_score": (estimate - exact) / error,
                "max_abs_sample": float(np.abs(samples).max()),
                "bound": bound,
            }
        )
    return rows


def monte_carlo_moments(
    rng: np.random.Generator, *, points, n_samples: int, library_points, library_samples: int
) -> pd.DataFrame:
    """E3: empirical ``E|X|`` and ``E X²`` with standard errors vs ``V_up``, ``D_up``.

    Spec: 10⁶ draws of our sampler per point (≈ 0.05 s each) and 2·10⁴ draws of
    ``diffprivlib.mechanisms.LaplaceBoundedNoise`` (≈ 0.3 s each, seeded from
    ``rng``); 20 points ε ∈ {0.1, 0.5, 1, 2, 5} × δ ∈ {1e-2, 1e-4, 1e-6, 1e-10}.
    Rows for diffprivlib are NaN, with a ``data_status`` saying so, when it is not importable.
    Columns: ``epsilon, delta, sampler, moment, n_samples, estimate,
    standard_error, exact, relative_error, relative_standard_error, z_score,
    max_abs_sample, bound`` (relative = divided by the exact moment; sampler
    ``dpreplication`` or ``diffprivlib``).
    """
    rows = []
    for eps, dlt in points:
        cal = tl_mechanism.calibrate_truncated_laplace(eps, dlt)
        # the release function itself
        samples = tl_mechanism.truncated_laplace_mechanism(np.zeros(n_samples), eps, dlt, rng)
        rows += _moment_rows(
            eps,
            dlt,
            "dpreplication",
            samples,
            float(cal.bound),
            float(tl_mechanism.truncated_laplace_amplitude(eps, dlt)),
            float(tl_mechanism.truncated_laplace_power(eps, dlt)),
        )
    for eps, dlt in library_points:
        status = ""
        try:
            samples = oracles.diffprivlib_truncated_laplace_samples(
                eps, dlt, library_samples, seed=int(rng.integers(2**31))
            )
        except ImportError as error:
            samples, status = np.array([np.nan]), f"missing: diffprivlib is not installed ({error})"
        start = len(rows)
        rows += _moment_rows(
            eps,
            dlt,
            "diffprivlib",
            samples,
            float(tl_mechanism.truncated_laplace_bound(eps, dlt)),
            float(tl_mechanism.truncated_laplace_amplitude(eps, dlt)),
            float(tl_mechanism.truncated_laplace_power(eps, dlt)),
        )
        for row in rows[start:]:
            row[DATA_STATUS_COLUMN] = status
    return pd.DataFrame(rows)


def privacy_audit(*, points, shifts_per_side: int, n_points: int, tightness_factor: float) -> pd.DataFrame:
    """E4: ``H_{ε'}(d)`` by quadrature of ``(f - e^{ε'} f(· + d))_+`` vs the exact profile, ``d ∈ [-Δ, Δ]``.

    For each (ε, δ) the audit runs at ``ε' = ε`` (bound ``δ(e^{ε|d|} - 1)/(e^ε - 1) ≤ δ``,
    tight at ``|d| = Δ``) and at ``ε' = tightness_factor·ε`` (exceeds δ at
    ``|d| = Δ``: 1.076δ at (0.5, 0.2)). Spec: points (1, 1e-6), (0.1, 1e-3),
    (3, 1e-2), (0.5, 0.2); 2·10⁶ grid points; 41 shifts (≈ 0.5 s per audit).
    Columns: ``epsilon, delta, epsilon_prime, shift, hockey_stick_numeric,
    hockey_stick_exact, error_over_delta``.
    """
    frames = []
    for eps, dlt in points:
        cal = tl_mechanism.calibrate_truncated_laplace(eps, dlt)
        scale, bound = float(cal.scale), float(cal.bound)
        for eps_prime in (eps, tightness_factor * eps):
            audit = audit_noise_privacy(
                lambda x: tl_mechanism.truncated_laplace_pdf(x, scale, bound),
                eps_prime,
                dlt,
                (-bound, bound),
                shifts_per_side=shifts_per_side,
                n_points=n_points,
            )
            exact = tl_mechanism.truncated_laplace_hockey_stick(eps_prime, audit.shifts, scale, bound)
            frames.append(
                pd.DataFrame(
                    {
                        "epsilon": eps,
                        "delta": dlt,
                        "epsilon_prime": eps_prime,
                        "shift": audit.shifts,
                        "hockey_stick_numeric": audit.hockey_stick,
                        "hockey_stick_exact": exact,
                        "error_over_delta": (audit.hockey_stick - exact) / dlt,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def privacy_profiles(
    *, epsilon: float, delta: float, epsilon_primes=None, max_epsilon_prime_factor: float, n_epsilon_prime: int
) -> pd.DataFrame:
    """E5: ``δ(ε') = H_{ε'}(Δ)`` for TL, the analytic Gaussian and Laplace, calibrated to (ε, δ) = (1, 1e-6).

    TL is flat at δ for ε' ≥ ε (the event ``X ∈ (A - Δ, A]`` identifies the
    neighbour); the Gaussian decays; Laplace(Δ/ε) is 0 from ε' = ε on.
    Grid (when ``epsilon_primes`` is None): ε' ∈ linspace(0, max_epsilon_prime_factor·ε,
    n_epsilon_prime), i.e. [0, 3ε] with 301 points by default. Columns: ``mechanism, label,
    epsilon, delta, epsilon_prime, delta_prime`` (``epsilon``, ``delta``: the common calibration).
    """
    if epsilon_primes is None:
        epsilon_primes = np.linspace(0.0, max_epsilon_prime_factor * epsilon, int(n_epsilon_prime))
    epsilon_primes = np.asarray(epsilon_primes, float)
    sigma = add.analytic_gaussian_sigma(epsilon, delta)
    profiles = {
        "truncated_laplace": tl_mechanism.truncated_laplace_privacy_profile(epsilon_primes, epsilon, delta),
        "analytic_gaussian": add.gaussian_privacy_profile(epsilon_primes, sigma),
        "laplace": add.laplace_privacy_profile(epsilon_primes, epsilon),
    }
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "mechanism": name,
                    "label": MECHANISM_LABELS[name],
                    "epsilon": epsilon,
                    "delta": delta,
                    "epsilon_prime": epsilon_primes,
                    "delta_prime": values,
                }
            )
            for name, values in profiles.items()
        ],
        ignore_index=True,
    )


def _call_oracle(library: str, call, epsilon: float, delta: float) -> tuple[float, str]:
    """``(value, data_status)`` of one library call: NaN and why when the library is absent or raises."""
    try:
        return float(call(epsilon, delta)), ""
    except ImportError as error:
        return np.nan, f"missing: {library} is not installed ({error})"
    except Exception as error:  # noqa: BLE001 — a failing optional library is reported, not fatal
        return np.nan, f"missing: {library} raised {type(error).__name__}: {error}"


def library_cross_check(*, points) -> pd.DataFrame:
    """E8: our σ_aG and A against dp-accounting, autodp, diffprivlib; OpenDP's conservative δ at σ_aG.

    Libraries are imported lazily; a missing library (or a failing call) gives
    ``library_value = relative_difference = NaN`` and a ``data_status`` saying why, so the claims
    that read the row are ``missing``. Spec agreement: dp-accounting
    ≤ 2e-13 (PLD search: ≥ ours, +2e-11…+1e-7); autodp ≤ 4e-8 for δ ≥ 1e-6, up
    to 3.5e-5 at δ = 1e-10; diffprivlib ≤ 5e-9 but -3.6e-5 at (10, 1e-10), A to
    1e-15; OpenDP δ is 3.7–4.4 × δ (one-sided, must be ≥ δ).
    Columns: ``epsilon, delta, library, function, quantity, ours, library_value,
    relative_difference`` (``library_value/ours - 1``; for OpenDP ``ours`` is δ).
    """
    ours_by_quantity = {
        "analytic_gaussian_sigma": add.analytic_gaussian_sigma,
        "truncated_laplace_bound": tl_mechanism.truncated_laplace_bound,
        "delta_at_analytic_gaussian_sigma": lambda eps, dlt: dlt,
    }
    rows = []
    for oracle in oracles.ORACLES:
        for eps, dlt in points:
            ours = float(ours_by_quantity[oracle.quantity](eps, dlt))
            value, status = _call_oracle(oracle.library, oracle.call, eps, dlt)
            rows.append(
                {
                    "epsilon": eps,
                    "delta": dlt,
                    "library": oracle.library,
                    "function": oracle.function,
                    "quantity": oracle.quantity,
                    "ours": ours,
                    "library_value": value,
                    "relative_difference": value / ours - 1.0,
                    DATA_STATUS_COLUMN: status,
                }
            )
    return pd.DataFrame(rows)


def calibration_audit(
    rng: np.random.Generator, *, n_points: int, log10_epsilon_range, log10_delta_range, tolerance: float
) -> pd.DataFrame:
    """E8b: each library's analytic-Gaussian σ at ``n_points`` random (ε, δ) (log-uniform), judged by the exact δ(σ).

    δ(σ) is computed at 50 digits: ``relative_excess = δ(σ)/δ − 1 > tolerance`` means the library
    under-noises (its σ is not (ε, δ)-DP). Columns: ``point, epsilon, delta, library, function,
    sigma, true_delta, relative_excess, under_noises, data_status`` (a library that is absent or
    raises gives NaN and says why).
    """
    epsilons = 10.0 ** rng.uniform(*log10_epsilon_range, n_points)
    deltas = 10.0 ** rng.uniform(*log10_delta_range, n_points)
    rows = []
    calibrations = [("dpreplication", "mechanisms.analytic_gaussian_sigma", add.analytic_gaussian_sigma)]
    calibrations += [(o.library, o.function, o.call) for o in oracles.ANALYTIC_GAUSSIAN_CALIBRATIONS]
    for library, function, call in calibrations:
        for point, (eps, dlt) in enumerate(zip(epsilons, deltas)):
            sigma, status = _call_oracle(library, call, eps, dlt)
            true_delta = oracles.gaussian_delta_high_precision(sigma, eps) if np.isfinite(sigma) else np.nan
            excess = true_delta / dlt - 1.0
            rows.append(
                {
                    "point": point,
                    "epsilon": eps,
                    "delta": dlt,
                    "library": library,
                    "function": function,
                    "sigma": sigma,
                    "true_delta": true_delta,
                    "relative_excess": excess,
                    "under_noises": bool(excess > tolerance),
                    DATA_STATUS_COLUMN: status,
                }
            )
    return pd.DataFrame(rows)


def calibration_audit_summary(audit: pd.DataFrame) -> pd.DataFrame:
    """Per library: pairs computed, how many under-noise, the largest relative excess of δ and its (ε, δ).

    ``data_status`` says why pairs are missing.
    """
    rows = []
    for (library, function), group in audit.groupby(["library", "function"], sort=False):
        computed = group[group.relative_excess.notna()]
        worst = computed.loc[computed.relative_excess.idxmax()] if len(computed) else None
        rows.append(
            {
                "library": library,
                "function": function,
                "pairs": len(group),
                "computed": len(computed),
                "under_noising_pairs": int(computed.under_noises.sum()),
                "max_relative_excess": float(worst.relative_excess) if worst is not None else np.nan,
                "worst_epsilon": float(worst.epsilon) if worst is not None else np.nan,
                "worst_delta": float(worst.delta) if worst is not None else np.nan,
                "min_relative_excess": float(computed.relative_excess.min()) if len(computed) else np.nan,
                DATA_STATUS_COLUMN: ""
                if len(computed) == len(group)
                else "; ".join(sorted(set(group[DATA_STATUS_COLUMN]) - {""}))[:300],
            }
        )
    return pd.DataFrame(rows)
