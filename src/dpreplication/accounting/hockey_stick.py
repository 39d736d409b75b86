"""A numerical check of an additive-noise law's (ε, δ)-DP guarantee, whatever its density.

By Lemma 1 of the truncated-Laplacian spec a noise law with density ``f`` makes ``q(D) + X``
(ε, δ)-DP for every query of sensitivity Δ iff the hockey-stick divergence
``H_ε(d) = ∫ (f(x) − e^ε f(x + d))_+ dx ≤ δ`` for every shift ``|d| ≤ Δ``. :func:`audit_noise_privacy`
evaluates ``H_ε`` by quadrature on a grid of shifts; the tests compare it with the exact profiles
of :mod:`dpreplication.mechanisms.additive`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PrivacyAudit:
    """Hockey-stick divergences ``H_ε(d)`` of a noise density on a grid of shifts.

    ``satisfied`` is ``max_d H_ε(d) ≤ δ (1 + rel_tol)``; ``rel_tol`` absorbs the
    O(grid step × density jump) error of the midpoint rule.
    """

    epsilon: float
    delta: float
    shifts: np.ndarray
    hockey_stick: np.ndarray
    rel_tol: float

    @property
    def max_hockey_stick(self) -> float:
        return float(self.hockey_stick.max())

    @property
    def argmax_shift(self) -> float:
        return float(self.shifts[np.argmax(self.hockey_stick)])

    @property
    def satisfied(self) -> bool:
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
    """
    sens = float(sensitivity)
    if not (np.isfinite(sens) and sens > 0):
        raise ValueError(f"sensitivity must be positive and finite, got {sensitivity!r}")
    lo, hi = float(support[0]) - sens, float(support[1]) + sens
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
