"""Tests of :mod:`dpreplication.learning.reachable`, the set of models PrivGene's mutation schedule
can reach. Its docstrings state the reach radius ``ρ_r = Σ_{i<r} s_i`` (``10(1 − 0.95^{r−1})`` for
the multiplicative schedule from 0.5), that a run started from a constant classifier releases
``‖α‖₁ ≤ ρ_r`` (half the radius is violated by some run: the check can fail), and that
:func:`~dpreplication.learning.reachable.fit_in_reachable_set` finds the minimiser over the convex
relaxation ``{‖α‖₁ ≤ ρ, ‖ω‖∞ ≤ B}`` (oracle: cvxpy/Clarabel). The ablations that use it are in
``tests/papers/test_privgene_ablations.py``."""

import cvxpy as cp
import numpy as np
import pytest
from privgene_helpers import toy

from dpreplication.learning import PrivGeneSettings, privgene
from dpreplication.learning.fitness import LogisticFitness
from dpreplication.learning.reachable import fit_in_reachable_set, reach_radius


def test_reach_radius_closed_form():
    """ρ_r = Σ_{i<r} 0.5·0.95^{i-1} = 10(1 − 0.95^{r−1}); additive: 0.5·Σ(1 − 0.05(i−1)); r = 1 moves nothing."""
    for r in (2, 23, 40, 49):
        assert reach_radius(r, 0.5) == pytest.approx(10 * (1 - 0.95 ** (r - 1)), rel=1e-12)
    assert reach_radius(20, 0.5, schedule="additive") == pytest.approx(0.5 * (19 - 0.05 * 171), rel=1e-12)
    assert reach_radius(1, 0.5) == 0.0


def _runs_from_constant_start(radius_factor):
    """Largest ‖α_out‖₁ − factor·ρ_r over PrivGene runs whose first selection is a constant classifier."""
    data = toy(n=4000, d=6)
    fitness = LogisticFitness(data.features, data.labels)
    excess = []
    for seed in range(12):
        result = privgene(fitness, 2.0, PrivGeneSettings(dampening="eem", m_prime=1), np.random.default_rng(seed))
        if np.abs(result.selected[0][:-1]).sum() == 0:  # started from Ω±
            excess.append(np.abs(result.omega[:-1]).sum() - radius_factor * reach_radius(result.iterations, 0.5))
    assert excess, "no run started from a constant classifier"
    return max(excess)


def test_privgene_output_lies_in_the_reach():
    """Every run started from Ω± releases ‖α‖₁ ≤ ρ_r (the relaxation's ℓ1 ball is a superset)."""
    assert _runs_from_constant_start(1.0) <= 1e-9


def test_reach_negative_control():
    """Negative control: half the radius is violated by some run (the check can fail)."""
    assert _runs_from_constant_start(0.5) > 0


@pytest.mark.parametrize("task", ["lr", "svm"])
def test_fit_in_reachable_set_matches_a_conic_solver(task):
    """SLSQP on α = α⁺ − α⁻ finds cvxpy/Clarabel's minimiser over {‖α‖₁ ≤ ρ, ‖ω‖∞ ≤ 5} (exact hinge for
    the SVM: the Huber smoothing moves the objective by ≤ C·n·h/4)."""
    data = toy(n=300, d=5, seed=1)
    labels = data.labels if task == "lr" else 2 * data.labels - 1
    radius, n = 1.5, len(labels)
    omega = fit_in_reachable_set(data.features, labels, task, radius, h=1e-3)
    assert np.abs(omega[:-1]).sum() <= radius + 1e-8 and np.abs(omega).max() <= 5 + 1e-8
    w = cp.Variable(6)
    z = np.hstack([data.features, np.ones((n, 1))]) @ w
    objective = (
        cp.sum(cp.logistic(z)) - labels @ z
        if task == "lr"
        else 0.5 * cp.sum_squares(w[:-1]) + 10 * cp.sum(cp.pos(1 - cp.multiply(labels, z)))
    )
    problem = cp.Problem(cp.Minimize(objective), [cp.norm1(w[:-1]) <= radius, cp.abs(w) <= 5])
    problem.solve(solver="CLARABEL")
    w.value = omega
    ours = float(objective.value)
    assert ours <= problem.value * (1 + 1e-4) + (10 * n * 1e-3 / 4 if task == "svm" else 1e-6)
