"""The exact privacy verifier of DaRRM (Lemma 5.1): answers that do not depend on the BLAS kernel."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from dpreplication.accounting import privacy_verifier as V
from dpreplication.accounting.privacy_verifier import effective_budget
from dpreplication.mechanisms.majority import gamma_majority, gamma_subsampling

PROGRAM = (
    "from dpreplication.accounting.privacy_verifier import effective_budget\n"
    "from dpreplication.mechanisms.majority import gamma_majority\n"
    "print(repr(effective_budget(gamma_majority(11), 11, 1.0)))\n"
)


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_plain_majority_of_eleven_has_effective_budget_six(epsilon):
    """Majority of K = 11 is exactly ((K + 1)/2)ε = 6ε-DP (Lemma 3.2's γ = 1)."""
    assert effective_budget(gamma_majority(11), 11, epsilon) == pytest.approx(6, abs=1e-9)


@pytest.mark.parametrize("coretype", ["Haswell", "Nehalem"])
def test_effective_budget_is_the_same_on_another_blas_kernel(coretype):
    """At m = K = 11 and ε = 1 the violation's rounding is about 1e-11: a fixed 1e-12 tolerance gave
    ``inf`` on OpenBLAS' Nehalem kernel and 6 on Haswell's."""
    env = {
        **os.environ,
        "OPENBLAS_CORETYPE": coretype,
        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
    }
    result = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True)
    assert float(result.stdout) == effective_budget(gamma_majority(11), 11, 1.0) == pytest.approx(6, abs=1e-9)


GAMMA = gamma_subsampling(11, 3)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: V.verify_privacy(GAMMA, 11, 3, 0.1, 0.0, math.nan), r"delta must lie in \[0, 1\), got nan"),
        (lambda: V.verify_privacy(GAMMA, 11, math.nan, 0.1), "m must be non-negative and finite, got nan"),
        (lambda: V.effective_budget(GAMMA, 11, 0.1, 0.0, math.nan), r"delta must lie in \[0, 1\), got nan"),
        (lambda: V.effective_budget(GAMMA, 11, 0.1, m_max=math.inf), "m must be non-negative and finite, got inf"),
        (lambda: V.iid_privacy_violation(GAMMA, 11, 3, 0.1, 0.0, 1.0), r"delta must lie in \[0, 1\), got 1.0"),
        (
            lambda: V.probability_gaps(GAMMA, np.full(11, 0.5), np.full(11, 0.5), 3, math.inf, 0.0),
            "epsilon must be non-negative and finite, got inf",
        ),
    ],
)
def test_a_nan_or_out_of_range_target_raises_naming_the_argument(call, message):
    """The target ``(mε, δ)`` needs ``m ≥ 0``, ``ε ≥ 0`` finite and ``0 ≤ δ < 1``: a NaN made every
    violation NaN, which no ``violation ≤ tolerance`` test flags. Before, ``verify_privacy`` with
    δ = NaN reported a NaN violation and ``effective_budget`` returned ∞."""
    with pytest.raises(ValueError, match=message):
        call()
