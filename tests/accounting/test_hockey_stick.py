"""Tests of :mod:`dpreplication.accounting.hockey_stick`: the guarantee audited. Its docstring states
``ε ≥ 0``, ``δ ≥ 0`` and ``Δ > 0``, all finite; a NaN ε made every divergence NaN and a NaN δ made
the verdict ``satisfied`` false for a reason no message named, so the audit refuses them (Δ was
already checked). Its
divergences are tested against the exact profiles in ``tests/mechanisms/test_truncated_laplace_mechanism.py``."""

import math

import numpy as np
import pytest

from dpreplication.accounting.hockey_stick import audit_noise_privacy


def laplace(x):
    return np.exp(-np.abs(x)) / 2 * (np.abs(x) <= 30)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"epsilon": math.nan}, "epsilon must be non-negative and finite, got nan"),
        ({"epsilon": -1.0}, "epsilon must be non-negative and finite, got -1.0"),
        ({"delta": math.nan}, "delta must be non-negative and finite, got nan"),
    ],
)
def test_arguments_out_of_range_raise_naming_the_argument(arguments, message):
    with pytest.raises(ValueError, match=message):
        audit_noise_privacy(laplace, **{"epsilon": 1.0, "delta": 0.0, "support": (-30.0, 30.0), **arguments})
