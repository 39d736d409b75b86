"""Tests of :mod:`dpreplication.validation`, the one home of the argument checks: every message names
the argument, its valid range and the value received; NaN and infinities fail every check (a NaN
compares false, so a check written as ``if value < 0: raise`` would let it through); a budget guard
fails on NaN; and no module imports a private validator from another one."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from dpreplication import validation as v

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "dpreplication"


@pytest.mark.parametrize(
    "check, value, message",
    [
        (lambda x: v.positive("epsilon", x), np.float64(math.nan), "epsilon must be positive and finite, got nan$"),
        (lambda x: v.positive("epsilon", x), np.float64(-1.0), "epsilon must be positive and finite, got -1.0"),
        (lambda x: v.positive("epsilon", x), "one", "epsilon must be a real number, got 'one'"),
        (
            lambda x: v.positive("epsilon", x, allow_infinity=True),
            math.nan,
            r"epsilon must be positive \(inf allowed\)",
        ),
        (lambda x: v.non_negative("m", x), math.inf, "m must be non-negative and finite, got inf"),
        (lambda x: v.non_negative("delta2", x, allow_infinity=True), math.nan, "delta2 must be non-negative"),
        (
            lambda x: v.in_unit_interval("delta", x, include_zero=False),
            np.float64(1.0),
            r"delta must lie in \(0, 1\), got 1.0$",
        ),
        (
            lambda x: v.positive_array("sigma", x),
            [1.0, math.inf],
            r"sigma must be positive and finite, got \[1.0, inf\]",
        ),
        (lambda x: v.non_negative_array("epsilon_prime", x), [0.0, math.nan], "epsilon_prime must be non-negative"),
        (lambda x: v.finite_array("epsilon_prime", x), -math.inf, "epsilon_prime must be finite, got -inf"),
        (lambda x: v.privacy_delta(x, 0.5), [0.1, 0.5], r"delta must lie in \(0, 0.5\), got \[0.1, 0.5\]"),
        (lambda x: v.privacy_parameters(x, 1e-5), math.nan, "epsilon must be positive and finite, got nan"),
    ],
)
def test_messages_name_the_argument_the_range_and_the_value(check, value, message):
    with pytest.raises(ValueError, match=message):
        check(value)


def test_values_in_range_pass_unchanged():
    assert v.positive("epsilon", np.float64(0.5)) == 0.5 and v.positive("epsilon", math.inf, allow_infinity=True)
    assert v.non_negative("m", 0) == 0.0 and v.non_negative("delta2", math.inf, allow_infinity=True) == math.inf
    eps, dlt = v.privacy_parameters([0.1, 1.0], 1e-5, delta_max=0.5)
    np.testing.assert_array_equal(eps, [0.1, 1.0])
    np.testing.assert_array_equal(dlt, [1e-5, 1e-5])


@pytest.mark.parametrize(
    "spent, allowed",
    [(math.nan, 1.0), (1.0, math.nan), (math.inf, 1.0), (1.0 + 1e-9, 1.0), (0.5, math.inf), (0.5, -1.0)],
)
def test_a_budget_guard_fails_on_nan_and_over_the_budget(spent, allowed):
    with pytest.raises(ValueError, match="DP-SGD teacher 3 of toy"):
        v.within_budget("DP-SGD teacher 3 of toy", spent, allowed, relative_slack=1e-12)


def test_a_budget_guard_passes_within_its_slack_and_names_the_amounts():
    v.within_budget("GNMax", 1.0, 1.0)
    v.within_budget("GNMax", 1.0 + 1e-13, 1.0, relative_slack=1e-12)
    with pytest.raises(ValueError, match=r"GNMax spends ε = 2.0, over its budget ε = 1.0"):
        v.within_budget("GNMax", 2.0, 1.0)


def test_no_module_imports_a_private_name_from_another():
    """Argument checks live in :mod:`dpreplication.validation`; a private helper imported across
    modules (``from …additive import _privacy_parameters``) is a second home."""
    imported = sorted(
        f"{path.relative_to(PACKAGE)}: {node.module}.{alias.name}"
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpreplication")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    )
    assert imported == []
