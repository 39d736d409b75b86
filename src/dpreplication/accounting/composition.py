"""Composition of ``(ε, δ)``-DP releases over many queries.

Advanced composition (Dwork, Rothblum & Vadhan 2010; the DaRRM paper's "general composition",
spec §3): ``Q`` adaptive ``(ε, δ)``-DP releases are ``(ε_tot, δ_tot)``-DP for every ``δ' > 0`` with

    ε_tot = √(2Q log(1/δ')) ε + Q ε (e^ε − 1),     δ_tot = Q δ + δ'.
"""

from __future__ import annotations

import numpy as np

from dpreplication.docstrings import shared_parameters
from dpreplication.validation import RAISES, in_unit_interval, non_negative, whole_number


@shared_parameters(RAISES)
def advanced_composition(epsilon: float, delta: float, queries: int, delta_prime: float) -> tuple[float, float]:
    """``(ε_tot, δ_tot)`` of ``queries`` adaptive ``(ε, δ)``-DP releases by advanced composition.

    ``ε_tot = √(2Q log(1/δ')) ε + Q ε (e^ε − 1)``, ``δ_tot = Q δ + δ'`` (module docstring).

    Parameters
    ----------
    epsilon : float, ε ≥ 0 and finite
        ε of each release.
    delta : float, 0 ≤ δ ≤ 1
        δ of each release.
    queries : int, Q ≥ 1
        Number ``Q`` of releases.
    delta_prime : float, 0 < δ' ≤ 1
        Slack ``δ'`` of the theorem: a smaller ``δ'`` gives a larger ``ε_tot``.

    Returns
    -------
    tuple of float
        ``(ε_tot, δ_tot)``.

    {raises_out_of_range}
    """
    non_negative("epsilon", epsilon)
    in_unit_interval("delta", delta, include_one=True)
    whole_number("queries", queries, minimum=1)
    in_unit_interval("delta_prime", delta_prime, include_zero=False, include_one=True)
    epsilon_total = np.sqrt(2.0 * queries * np.log(1.0 / delta_prime)) * epsilon + queries * epsilon * np.expm1(epsilon)
    return float(epsilon_total), float(queries * delta + delta_prime)
