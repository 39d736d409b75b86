"""Composition of ``(ε, δ)``-DP releases over many queries.

Advanced composition (Dwork, Rothblum & Vadhan 2010; the DaRRM paper's "general composition",
spec §3): ``Q`` adaptive ``(ε, δ)``-DP releases are ``(ε_tot, δ_tot)``-DP for every ``δ' > 0`` with

    ε_tot = √(2Q log(1/δ')) ε + Q ε (e^ε − 1),     δ_tot = Q δ + δ'.
"""

from __future__ import annotations

import numpy as np


def advanced_composition(epsilon: float, delta: float, queries: int, delta_prime: float) -> tuple[float, float]:
    """``(ε_tot, δ_tot)`` of ``queries`` ``(ε, δ)``-DP releases (module docstring)."""
    epsilon_total = np.sqrt(2.0 * queries * np.log(1.0 / delta_prime)) * epsilon + queries * epsilon * np.expm1(epsilon)
    return float(epsilon_total), float(queries * delta + delta_prime)
