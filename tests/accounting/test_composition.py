"""Tests of :mod:`dpreplication.accounting.composition`: advanced composition's arguments. Its
docstring states ``ε ≥ 0``, ``0 ≤ δ ≤ 1``, an integer ``Q ≥ 1`` and ``0 < δ' ≤ 1``; outside them
(NaN and infinities included) it raises instead of returning a NaN or meaningless budget. Its
values are tested with DaRRM's privacy table in ``tests/papers/test_darrm_prediction.py``."""

import math

import pytest

from dpreplication.accounting.composition import advanced_composition


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((math.nan, 1e-6, 10, 1e-6), "epsilon must be non-negative and finite, got nan"),
        ((math.inf, 1e-6, 10, 1e-6), "epsilon must be non-negative and finite, got inf"),
        ((0.1, math.nan, 10, 1e-6), r"delta must lie in \[0, 1\], got nan"),
        ((0.1, 1e-6, 2.5, 1e-6), "queries must be an integer ≥ 1, got 2.5"),
        ((0.1, 1e-6, math.inf, 1e-6), "queries must be an integer ≥ 1, got inf"),
        ((0.1, 1e-6, 10, 0.0), r"delta_prime must lie in \(0, 1\], got 0.0"),
    ],
)
def test_arguments_out_of_range_raise_naming_the_argument(arguments, message):
    """Before, ``advanced_composition(nan, …)`` returned ``(nan, 1.1e-05)``."""
    with pytest.raises(ValueError, match=message):
        advanced_composition(*arguments)
