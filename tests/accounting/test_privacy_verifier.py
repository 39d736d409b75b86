"""The exact privacy verifier of DaRRM (Lemma 5.1): answers that do not depend on the BLAS kernel."""

import os
import subprocess
import sys

import pytest

from dpreplication.accounting.privacy_verifier import effective_budget
from dpreplication.mechanisms.majority import gamma_majority

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
