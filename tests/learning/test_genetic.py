"""Tests of :mod:`dpreplication.learning.genetic`, PrivGene's genetic algorithm (Zhang et al. 2013;
spec §8, checks 1–4, 7, 13 and 14). Its docstrings state that ``r = max(1, round(c·n·ε/m'))``
selections each spend ε/r, ε in total (Lemma 1); that the mutation scale decays multiplicatively;
that the initial candidates hold the constant classifiers Ω±; that with ``m' = 1`` a child is its
parent ± s on one coordinate (one whole centre for k-means, whose crossover swaps whole centres),
so Δ2 = 4bs is below Δ1 after the first iteration; and that a seeded run is reproducible and, at a
moderate budget, beats Majority and nears the non-private fit. The exact privacy audits of EEM
inside PrivGene are in ``tests/papers/test_privgene.py``; the fitness functions' bounds in
``test_fitness.py``."""

import numpy as np
import pytest
from privgene_helpers import rng, synthetic

from dpreplication.learning import models
from dpreplication.learning.fitness import KMeansFitness, LogisticFitness, max_pairwise_l1
from dpreplication.learning.genetic import (
    PrivGeneSettings,
    initial_candidates,
    iterations,
    mutation_scales,
    offspring,
    privgene,
)
from dpreplication.replications.privgene import methods as pg

# --------------------------------------------------------------------------- checks 1–3: numbers


def test_iteration_counts_match_spec():
    assert [iterations(1.25e-3, 39074, e, 1) for e in (0.05, 0.1, 0.2, 0.4, 0.8, 1.0)] == [2, 5, 10, 20, 39, 49]
    assert iterations(1.25e-3, 39074, 1.0, 10) == 5
    assert iterations(1.25e-3, 26733, 0.1, 10) == 1


def test_mutation_schedule_is_multiplicative():
    scales = mutation_scales(0.5, 48)
    assert scales[0] == 0.5 and scales[47] == pytest.approx(0.04487, abs=1e-5)
    additive = mutation_scales(0.5, 30, schedule="additive")
    assert additive[20] == 0.0 and np.all(additive >= 0)


# --------------------------------------------------------------------------- check 4: Δ2 after mutation


@pytest.mark.parametrize("task, bound", [("lr", 1.0), ("svm", 10.0)])
def test_offspring_of_one_parent_give_delta2_of_four_bs(task, bound):
    """m' = 1: offspring are parent ± s e_j, so max L1 distance 2s and Δ2 = 4bs (Eq. 13, 16)."""
    x, y, _ = synthetic(200, 5, 1)
    fitness = pg.make_fitness(task, x, y)
    settings = PrivGeneSettings()
    parent = rng("parent", task).uniform(-2, 2, size=(1, 6))
    for scale in (0.5, 0.1, 0.01):
        children = offspring(parent, 200, scale, fitness, settings, rng("children", task, scale))
        assert max_pairwise_l1(children) == pytest.approx(2 * scale)
        assert fitness.delta2(children) == pytest.approx(4 * bound * scale)
        assert fitness.delta2(children) < fitness.delta1(children)


def test_trace_has_delta2_below_delta1_after_the_first_iteration():
    x, y, _ = synthetic(2000, 6, 2)
    run = privgene(LogisticFitness(x, y), 1.0, PrivGeneSettings(c=0.01), rng("trace"))
    later = run.trace.iloc[1:]
    assert (later.delta2 < later.delta1).all()
    assert np.allclose(later.delta2.to_numpy(), 4 * run.trace.mutation_scale.to_numpy()[:-1])
    assert (run.trace.delta_used == np.minimum(run.trace.delta1, run.trace.delta2)).all()


# --------------------------------------------------------------------------- checks 7, 13, 14: end to end


@pytest.mark.parametrize("task", ["lr", "svm"])
def test_privgene_end_to_end_beats_majority_and_nears_noprivacy(task):
    """Spec check 7 on the median of five seeded runs: with budget ε/r the first selection
    occasionally picks a random initial vector instead of a constant classifier, and one
    coordinate move per iteration cannot repair it (measured: about one run in five)."""
    x, y, _ = synthetic(12_500, 10, 7)
    train, test = slice(0, 10_000), slice(10_000, None)
    truth = pg.task_labels(task, y)
    fitness = pg.make_fitness(task, x[train], y[train])
    errors = []
    for run_number in range(5):
        run = privgene(fitness, 4.0, PrivGeneSettings(), rng("e2e", task, run_number))
        assert run.iterations == 50
        errors.append(models.misclassification_rate(x[test], truth[test], run.omega, task))
    omega = (
        models.fit_logistic_regression(x[train], truth[train])
        if task == "lr"
        else models.fit_linear_svm(x[train], truth[train], 1.0)
    )
    noprivacy = models.misclassification_rate(x[test], truth[test], omega, task)
    majority = min(y[test].mean(), 1 - y[test].mean())
    assert np.median(errors) <= noprivacy + 0.05
    assert np.median(errors) < majority - 0.05


def test_privgene_kmeans_on_separated_blobs():
    generator = rng("blobs")
    centres = np.array([[-0.6, -0.6], [0.6, -0.5], [0.0, 0.6]])
    points = np.clip(centres[generator.integers(3, size=20_000)] + 0.08 * generator.normal(size=(20_000, 2)), -1, 1)
    fitness = KMeansFitness(points, k=3)
    run = privgene(fitness, 10.0, PrivGeneSettings(dampening="em"), rng("blobs run"))
    assert run.iterations == iterations(1.25e-3, 20_000, 10.0, 10) == 25
    lloyd = models.intra_cluster_variance(points, models.lloyd_kmeans(points, 3, rng("lloyd")))
    assert models.intra_cluster_variance(points, run.omega.reshape(3, 2)) <= 2 * lloyd


def test_same_seed_same_output_and_r_one_returns_an_initial_candidate():
    x, y, _ = synthetic(1000, 4, 3)
    fitness = LogisticFitness(x, y)
    first = privgene(fitness, 1.0, PrivGeneSettings(c=0.01), rng("determinism"))
    second = privgene(fitness, 1.0, PrivGeneSettings(c=0.01), rng("determinism"))
    assert np.array_equal(first.selected, second.selected) and first.trace.equals(second.trace)
    single = privgene(fitness, 1.0, PrivGeneSettings(), rng("r=1"), n_iterations=1)
    starts = initial_candidates(fitness, PrivGeneSettings(), rng("r=1"))
    assert single.iterations == 1 and any(np.array_equal(single.omega, row) for row in starts)


def test_budget_of_every_selection_sums_to_epsilon():
    x, y, _ = synthetic(3000, 4, 4)
    for epsilon, c in ((0.3, 0.01), (1.0, 0.004), (2.5, 1e-5)):
        run = privgene(LogisticFitness(x, y), epsilon, PrivGeneSettings(c=c), rng("budget", epsilon))
        assert run.trace.epsilon_spent.sum() == pytest.approx(epsilon, rel=1e-12)
        assert run.iterations == iterations(c, 3000, epsilon, 1)


def test_initial_candidates_hold_the_constant_classifiers():
    x, y, _ = synthetic(100, 4, 5)
    starts = initial_candidates(LogisticFitness(x, y), PrivGeneSettings(), rng("start"))
    assert starts.shape == (200, 5) and np.abs(starts).max() <= 5
    constant = starts[180:]
    assert np.all(constant[:, :-1] == 0)
    assert np.all(constant[:10, -1] > 0) and np.all(constant[10:, -1] < 0)


def test_kmeans_offspring_swap_and_move_whole_centres():
    """Crossover exchanges whole centres; mutation moves exactly one centre by ±s per coordinate."""
    fitness = KMeansFitness(np.zeros((3, 2)), k=3)
    first = np.array([0.11, 0.12, 0.21, 0.22, 0.31, 0.32])
    parents = np.vstack([first, -first]).reshape(2, 3, 2)
    children = offspring(parents.reshape(2, 6), 40, 0.05, fitness, PrivGeneSettings(), rng("kmeans children"))
    for child in children.reshape(40, 3, 2):
        distance = np.abs(child[None, :, :] - parents)  # (parent, centre, coordinate)
        closest = distance.max(axis=2).min(axis=0)  # per centre: to the nearer parent
        assert (closest > 1e-12).sum() == 1
        moved = int(np.argmax(closest))
        assert np.allclose(distance[:, moved, :].min(axis=0), 0.05)


# --------------------------------------------------------------------------- the shortcuts release the same models


def test_delta2_from_the_moves_has_the_bits_of_the_pairwise_distances():
    """Children of one parent (some clipped at the bound, some equal to it): Δ2 read from the moves
    must be the very float that the exact pairwise distances give, or the EEM's Δ would move."""
    from scipy.spatial.distance import pdist

    x, y, _ = synthetic(50, 7, 3)
    fitness = LogisticFitness(x, y)
    generator = rng("delta2 bits")
    for _ in range(2000):
        parent = generator.uniform(-5, 5, size=8)
        at_bound = generator.integers(8, size=generator.integers(0, 4))
        parent[at_bound] = generator.choice([-5.0, 5.0, 4.99, -4.7], size=len(at_bound))
        scale = float(generator.choice([0.5, 0.3, 0.01, 1e-9, 7.0]))
        children = offspring(parent[None, :], int(generator.choice([2, 4, 20, 200])), scale, fitness,
                             PrivGeneSettings(), generator)  # fmt: skip
        if generator.random() < 0.3:
            children = np.vstack([children, parent])
        assert max_pairwise_l1(children, parent) == pdist(children, "cityblock").max()
    two_moves = np.vstack([parent, parent + np.eye(8)[0] + np.eye(8)[1]])
    assert max_pairwise_l1(two_moves, parent) == pdist(two_moves, "cityblock").max() == 2.0


class PlainProduct:
    """Mixed into a fitness: no shortcuts, every generation scored by the matrix product, Δ2 by pdist."""

    def scores(self, candidates, parent=None):
        return super().scores(candidates)

    def delta2(self, candidates, parent=None):
        return super().delta2(candidates)


@pytest.mark.parametrize("task", ["lr", "svm"])
def test_runs_release_the_models_of_the_plain_matrix_product(task):
    """Scoring children from their parent's margins (sparse design, carried margins, one- and
    two-pass moves) and Δ2 from the moves change the scores by rounding only: every selection, and
    so every released model, must be bit-identical to a run that scores each generation by the
    matrix product (Adult-like ±1 columns with rare values, and one continuous column)."""
    generator = rng("plain product", task)
    x = np.hstack([np.where(generator.random((12_000, 12)) < 0.1, 1.0, -1.0), generator.uniform(-1, 1, (12_000, 1))])
    y = (x @ generator.normal(size=13) + generator.normal(size=12_000) > -1.0).astype(float)
    fast = pg.make_fitness(task, x, y)
    plain = type("Plain", (PlainProduct, type(fast)), {})(x, y if task == "lr" else 2 * y - 1)
    assert fast.design.is_sparse
    settings = PrivGeneSettings(c=0.004)
    for epsilon in (0.1, 0.5, 1.0):
        for seed in range(3):
            released = [privgene(f, epsilon, settings, rng("plain run", task, epsilon, seed)) for f in (fast, plain)]
            assert released[0].iterations >= 4
            assert np.array_equal(released[0].selected, released[1].selected)
            assert released[0].trace.equals(released[1].trace)
