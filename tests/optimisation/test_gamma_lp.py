"""Tests of :mod:`dpreplication.optimisation.gamma_lp`, DaRRM's optimal noise function γ_opt as a
linear program (Jiang, Zhang & Joshi 2024, §5; spec §6.5–§6.7). Its docstrings state that γ_opt
maximises the utility objective subject to the (mε, δ) privacy constraint on every vertex multiset
of F^K, and that solver round-off is repaired by scaling, a γ the repair leaves above the budget
being refused rather than returned: every γ it returns passes the exact vertex verifier, the
solvers agree, the canonical tie-break keeps the objective, and γ_opt is at least as good as every
feasible baseline, equal to γ_Sub at m = 1 and to the majority for large budgets. The verifier's
negative controls and brute-force checks, the error table and K = 101 are in
``tests/papers/test_darrm.py``."""

from __future__ import annotations

import numpy as np
import pytest

from dpreplication.accounting import privacy_verifier as V
from dpreplication.mechanisms import majority as M
from dpreplication.mechanisms import majority_utility as MU
from dpreplication.optimisation import gamma_lp as LP
from dpreplication.optimisation import gamma_lp_constraints as LPC

# --------------------------------------------------------------------------- §6.5 the LP


def test_lp_k11_m3_matches_spec():
    result = LP.optimise_gamma(11, 3, 0.1)
    assert result.objective == pytest.approx(0.848733, abs=1e-5)
    np.testing.assert_allclose(result.upper_half, [0.9397, 0.5421, 1, 1, 0.9777, 1], atol=2e-3)
    assert V.verify_privacy(result.gamma, 11, 3, 0.1).violation <= 1e-12
    assert result.n_vertex_multisets == 364 and result.n_cols == 6 and result.nnz > 0


@pytest.mark.parametrize("solver", ["cvxpy-highs", "cvxpy-clarabel", "highs-ipm"])
def test_lp_solvers_agree(solver):
    reference = LP.optimise_gamma_cached(11, 3, 0.1, 1e-5, M.composed_delta(3, 1e-5))
    result = LP.optimise_gamma(11, 3, 0.1, 1e-5, M.composed_delta(3, 1e-5), solver=solver)
    np.testing.assert_allclose(result.gamma, reference.gamma, atol=1e-6)
    assert V.verify_privacy(result.gamma, 11, 3, 0.1, 1e-5, M.composed_delta(3, 1e-5)).violation <= 1e-12


def test_repair_by_scaling_restores_feasibility():
    constraints = LPC.darrm_constraint_matrix(11, 3, 0.1)
    x = LP.optimise_gamma_cached(11, 3, 0.1).upper_half * (1 + 1e-6)
    repaired, before, scale, after = LP.repair_by_scaling(x, constraints.A, constraints.b)
    assert before > 0 and scale < 1 and after <= 0
    assert V.verify_privacy(M.symmetric_gamma(repaired), 11, 3, 0.1).violation <= 1e-12


def test_a_gamma_the_repair_leaves_infeasible_is_not_returned(monkeypatch):
    """optimise_gamma refuses a γ whose repair ends above the budget instead of releasing it."""
    repair = LP.repair_by_scaling

    def overshoot(x, A, b):  # a solution 1 % above the budget that the repair does not scale back
        return repair(1.01 * np.asarray(x), A, b, max_rounds=0)

    monkeypatch.setattr(LP, "repair_by_scaling", overshoot)
    with pytest.raises(RuntimeError, match="still exceeds a privacy constraint"):
        LP.optimise_gamma(11, 3, 0.1)


def test_canonical_tie_break_keeps_the_objective():
    plain = LP.optimise_gamma_cached(11, 4, 0.1)
    canonical = LP.optimise_gamma(11, 4, 0.1, canonical=True)
    assert canonical.objective == pytest.approx(plain.objective, abs=1e-8)
    assert V.verify_privacy(canonical.gamma, 11, 4, 0.1).violation <= 1e-12


OPTIMISER_CASES = (
    [(11, m, 0.1, 0.0) for m in range(1, 12)]
    + [(11, m, 0.1, 1e-5) for m in (1, 2, 3, 5)]
    + [(7, m, 2.0, 0.0) for m in (1, 2, 3)]
    + [(9, 2, 0.5, 1e-3)]
)


@pytest.mark.parametrize("K,m,epsilon,Delta", OPTIMISER_CASES)
def test_every_optimised_gamma_passes_the_verifier(K, m, epsilon, Delta):
    delta = M.composed_delta(m, Delta)
    result = LP.optimise_gamma_cached(K, m, epsilon, Delta, delta)
    report = V.verify_privacy(result.gamma, K, m, epsilon, Delta, delta)
    assert report.violation <= 1e-12, report
    assert result.max_violation_after_repair <= 0
    assert np.all((result.gamma >= 0) & (result.gamma <= 1))


@pytest.mark.parametrize(
    "K,m,epsilon,Delta", [(11, 2, 0.1, 0.0), (11, 3, 0.1, 0.0), (11, 3, 0.1, 1e-5), (7, 2, 2.0, 0.0)]
)
def test_optimal_gamma_beats_every_feasible_baseline(K, m, epsilon, Delta):
    delta = M.composed_delta(m, Delta)
    result = LP.optimise_gamma_cached(K, m, epsilon, Delta, delta)
    c = MU.objective_coefficients(K)
    baselines = {
        "Sub": M.gamma_subsampling(K, m),
        "const": M.gamma_constant(K, m, epsilon, Delta, delta),
        "DSub": M.gamma_double_subsampling(K, m),
    }
    for name, gamma in baselines.items():
        if V.verify_privacy(gamma, K, m, epsilon, Delta, delta).violation <= 1e-12:
            assert result.objective >= c @ M.gamma_upper_half(gamma) - 1e-9, name


# --------------------------------------------------------------------------- §6.6–§6.7


@pytest.mark.parametrize("epsilon", [0.03, 0.1])
def test_gamma_opt_is_gamma_sub_at_m1(epsilon):
    result = LP.optimise_gamma_cached(11, 1, epsilon)
    assert np.abs(result.gamma - M.gamma_subsampling(11, 1)).max() < 1e-6


@pytest.mark.parametrize("m", range(6, 12))
def test_lp_returns_the_majority_for_large_budgets(m):
    np.testing.assert_allclose(LP.optimise_gamma_cached(11, m, 0.1).gamma, 1.0, atol=1e-9)


# --------------------------------------------------------------------------- cutting planes (large K)


@pytest.mark.parametrize(
    "K, m, epsilon, Delta",
    [
        (11, 3, 0.1, 0.0),
        (21, 5, 0.5, 0.0),
        (51, 10, 0.1, 0.0),
        (101, 10, 0.1, 0.0),
        (11, 3, 0.1, 1e-5),
        (15, 2, 0.1, 1e-5),
    ],
)
def test_cutting_planes_reach_the_full_lps_optimum(K, m, epsilon, Delta):
    """The LP on a growing set of rows ends at the full LP's optimum (both within HiGHS's
    feasibility tolerance), on far fewer rows, and its γ passes the exact verifier."""
    delta = M.composed_delta(m, Delta)
    full = LP.optimise_gamma(K, m, epsilon, Delta, delta)
    planes = LP.optimise_gamma_by_cutting_planes(K, m, epsilon, Delta, delta)
    assert planes.objective == pytest.approx(full.objective, abs=1e-7)
    assert planes.n_rows < full.n_rows and planes.n_redundant_rows == full.n_redundant_rows
    assert planes.max_violation_after_repair <= 0
    assert V.verify_privacy(planes.gamma, K, m, epsilon, Delta, delta).violation <= 1e-12


def test_cutting_planes_with_every_row_presolved_away_return_the_majority():
    """K = 11, m = 10, Δ = 1e-5: no row binds, so γ = 1 with no LP row (it used to fail on the empty set)."""
    planes = LP.optimise_gamma_by_cutting_planes(11, 10, 0.1, 1e-5, M.composed_delta(10, 1e-5))
    assert planes.n_rows == 0 and planes.n_redundant_rows == planes.n_vertex_multisets == 31_824
    np.testing.assert_array_equal(planes.gamma, LP.optimise_gamma(11, 10, 0.1, 1e-5, M.composed_delta(10, 1e-5)).gamma)


def test_cutting_planes_that_do_not_converge_are_an_error():
    with pytest.raises(RuntimeError, match="did not converge in 1 rounds"):
        LP.optimise_gamma_by_cutting_planes(101, 10, 0.1, rows_per_round=5, max_rounds=1)


def test_row_blocks_take_rows_across_blocks():
    blocks = LPC.RowBlocks([np.arange(6.0).reshape(3, 2), np.arange(6.0, 10.0).reshape(2, 2)])
    assert blocks.shape == (5, 2)
    np.testing.assert_array_equal(blocks @ np.ones(2), [1, 5, 9, 13, 17])
    np.testing.assert_array_equal(blocks.take(np.array([1, 3, 4])), [[2, 3], [6, 7], [8, 9]])
    assert blocks.take(np.array([], dtype=int)).shape == (0, 2)
