"""A numerical check of an additive-noise law's (ε, δ)-DP guarantee, whatever its density.

By Lemma 1 of the truncated-Laplacian spec a noise law with density ``f`` makes ``q(D) + X``
(ε, δ)-DP for every query of sensitivity Δ iff the hockey-stick divergence
``H_ε(d) = ∫ (f(x) − e^ε f(x + d))_+ dx ≤ δ`` for every shift ``|d| ≤ Δ``. :func:`audit_noise_privacy`
evaluates ``H_ε`` by quadrature on a grid of shifts; the tests compare it with the exact profiles
of :mod:`dpreplication.mechanisms.additive` and :mod:`dpreplication.mechanisms.truncated_laplace`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpreplication.validation import finite_array, non_negative, positive, whole_number


@dataclass(frozen=True)
class PrivacyAudit:
    """Hockey-stick divergences ``H_ε(d)`` of a noise density on a grid of shifts.

    ``satisfied`` is ``max_d H_ε(d) ≤ δ (1 + rel_tol)``; ``rel_tol`` absorbs the
    O(grid step × density jump) error of the midpoint rule.

    Parameters
    ----------
    epsilon : float, ε ≥ 0
        The ε of the audited guarantee.
    delta : float, δ ≥ 0
        The δ of the audited guarantee.
    shifts : numpy.ndarray
        The shifts ``d = jΔ/J``, ``j = −J..J``.
    hockey_stick : numpy.ndarray, entries ≥ 0
        ``H_ε(d)`` at each shift.
    rel_tol : float, ≥ 0
        Relative tolerance of :attr:`satisfied`.
    """

    epsilon: float
    delta: float
    shifts: np.ndarray
    hockey_stick: np.ndarray
    rel_tol: float

    @property
    def max_hockey_stick(self) -> float:
        """``max_d H_ε(d)`` over the grid of shifts."""
        return float(self.hockey_stick.max())

    @property
    def argmax_shift(self) -> float:
        """The shift ``d`` at which ``H_ε(d)`` is largest."""
        return float(self.shifts[np.argmax(self.hockey_stick)])

    @property
    def satisfied(self) -> bool:
        """``max_d H_ε(d) ≤ δ (1 + rel_tol)``."""
        return self.max_hockey_stick <= self.delta * (1.0 + self.rel_tol)


def audit_noise_privacy(
    density: Callable[[np.ndarray], np.ndarray],
    epsilon: float,
    delta: float,
    support: tuple[float, float],
    sensitivity: float = 1.0,
    shifts_per_side: int = 20,
    n_points: int = 2_000_000,
    rel_tol: float = 1e-4,
) -> PrivacyAudit:
    """Check Lemma 1 numerically: ``H_ε(d) = ∫ (f(x) - e^ε f(x + d))_+ dx ≤ δ`` for ``d = jΔ/J``, ``|j| ≤ J``.

    Knows nothing about the density but its (bounded) support: ``f`` is
    evaluated once at the midpoints of a uniform grid on
    ``[lo - Δ, hi + Δ]`` whose step divides ``Δ/J``, so every shifted density is
    the same array re-indexed; ``H`` is the midpoint sum. About ``n_points``
    evaluations; 41 shifts on 2·10⁶ points take ≈ 0.5 s.

    Parameters
    ----------
    density : callable
        The noise density ``f``, vectorised: maps an array of points to their densities.
    epsilon : float, ε ≥ 0 and finite
        The ε of the guarantee to check.
    delta : float, δ ≥ 0 and finite
        The δ of the guarantee to check.
    support : tuple of float, (lo, hi) with lo < hi, both finite
        A bounded interval outside which ``f`` is 0.
    sensitivity : float, Δ > 0 and finite
        The query sensitivity Δ: shifts range over ``[−Δ, Δ]``.
    shifts_per_side : int, J ≥ 1
        Number ``J`` of positive shifts; the grid has ``2J + 1`` shifts, ``d = 0`` included.
    n_points : int, ≥ 1
        Approximate number of density evaluations.
    rel_tol : float, ≥ 0
        Relative tolerance on δ of :attr:`PrivacyAudit.satisfied`.

    Returns
    -------
    PrivacyAudit
        The divergences at every shift and the verdict.

    Raises
    ------
    ValueError
        If ``sensitivity`` is not positive and finite, ``ε`` or ``δ`` is negative or not finite, the
        support is not a finite ``lo < hi``, a count is not a whole number ``≥ 1`` or ``rel_tol < 0``.
    """
    sens = positive("sensitivity", sensitivity)
    non_negative("epsilon", epsilon)
    non_negative("delta", delta)
    whole_number("shifts_per_side", shifts_per_side, minimum=1)
    whole_number("n_points", n_points, minimum=1)
    non_negative("rel_tol", rel_tol)
    support_lo, support_hi = finite_array("support", support)
    if not support_lo < support_hi:
        raise ValueError(f"support must be an interval (lo, hi) with lo < hi, got {support!r}")
    lo, hi = support_lo - sens, support_hi + sens
    per_shift = max(1, int(np.ceil(n_points * sens / (hi - lo) / shifts_per_side)))
    step = sens / (per_shift * shifts_per_side)
    n_cells = int(np.ceil((hi - lo) / step))
    values = np.asarray(density(lo + step * (np.arange(n_cells) + 0.5)), dtype=float)
    factor = np.exp(epsilon)
    offsets = per_shift * np.arange(-shifts_per_side, shifts_per_side + 1)
    divergences = np.empty(offsets.size)
    for i, offset in enumerate(offsets):
        shifted = np.zeros_like(values)
        if offset >= 0:
            shifted[: n_cells - offset] = values[offset:]
        else:
            shifted[-offset:] = values[: n_cells + offset]
        divergences[i] = step * np.maximum(values - factor * shifted, 0.0).sum()
    return PrivacyAudit(
        epsilon=float(epsilon),
        delta=float(delta),
        shifts=offsets * step,
        hockey_stick=divergences,
        rel_tol=rel_tol,
    )
