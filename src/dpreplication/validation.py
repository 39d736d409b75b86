"""Argument checks shared by the public functions: each raises ``ValueError`` naming the argument."""

from __future__ import annotations

import math


def positive(name: str, value) -> float:
    """``value`` as a float, required finite and ``> 0``."""
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return number


def in_unit_interval(name: str, value, *, include_zero: bool = True, include_one: bool = False) -> float:
    """``value`` as a float in [0, 1) by default (the ends as asked)."""
    number = float(value)
    above = number >= 0 if include_zero else number > 0
    below = number <= 1 if include_one else number < 1
    if not (math.isfinite(number) and above and below):
        interval = ("[" if include_zero else "(") + "0, 1" + ("]" if include_one else ")")
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return number


def one_of(name: str, value, allowed) -> str:
    """``value`` required to be one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {value!r}")
    return value
