"""Random streams: every random step of a job draws from its own stream, named by all of its keys.

A dropped key silently reuses one stream for several repetitions, folds, draws, teachers or
queries, and narrows every confidence interval. These tests record the keys each call site hands
``seeding.generator`` while the public job functions run, and check that (1) no two random steps
of a run share a stream, (2) runs that differ in one key (repetition, dataset, ε, seed) share no
stream, and (3) equal keys give equal draws.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpreplication import seeding
from dpreplication.data.tabular import TabularData
from dpreplication.replications import darrm_prediction, darrm_teachers, permute_and_flip, privgene
from dpreplication.replications import privgene_comparison as pc


@pytest.fixture
def streams(monkeypatch):
    """The (root seed, keys) of every stream built while the test runs."""
    built = []
    original = seeding.generator

    def recording(root_seed, *keys):
        built.append((root_seed, keys))
        return original(root_seed, *keys)

    monkeypatch.setattr(seeding, "generator", recording)
    return built


def toy_data(name: str = "toy") -> TabularData:
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (240, 3))
    return TabularData(name=name, features=X, labels=(X[:, 0] > 0).astype(float), columns=("a", "b", "c"), source="t")


def distinct(built: list) -> bool:
    return len(set(built)) == len(built)


def test_generator_keys_name_the_stream():
    draw = lambda *keys: seeding.generator(7, *keys).random(4).tolist()  # noqa: E731
    assert draw("a", 1) == draw("a", 1.0)  # YAML may give 1 or 1.0
    assert len({tuple(draw(*keys)) for keys in [("a", 1), ("a", 2), ("b", 1), (1, "a"), ("a",), ("a", 1, 0)]}) == 6
    assert seeding.generator(8, "a", 1).random() != seeding.generator(7, "a", 1).random()


def test_comparison_jobs_give_every_fold_and_epsilon_its_own_stream(streams):
    data = toy_data()

    def run(repetition, **overrides):
        start = len(streams)
        keywords = {"seed": 1, "epsilons": [0.1, 0.5], "folds": 3, **overrides}
        frame = pc.comparison_job(data, "lr", "PrivateERM", repetition, **keywords)
        return frame, streams[start:]

    first, built = run(0)
    assert distinct(built)
    releases = [keys for _, keys in built if keys[1] == "comparison"]
    assert len(releases) == 3 * 2 and {k[-2:] for k in releases} == {(f, e) for f in range(3) for e in (0.1, 0.5)}
    _, other_repetition = run(1)
    _, other_seed = run(0, seed=2)
    assert not set(built) & set(other_repetition) and not set(built) & set(other_seed)
    again, _ = run(0)
    assert again.equals(first)  # equal keys, equal draws


def test_protocol_jobs_give_every_fold_its_own_stream(streams):
    method = privgene.majority_method("lr", 0.5)

    def run(data_name="toy", **keys):
        start = len(streams)
        arguments = {
            "seed": 1,
            "figure": "f",
            "task": "lr",
            "method_name": "Majority",
            "parameter": 0.5,
            "repetition": 0,
            "folds": 3,
            **keys,
        }
        privgene.run_job(toy_data(data_name), method, **arguments)
        return streams[start:]

    built = run()
    assert distinct(built) and len(built) == 1 + 3  # the folds, then one stream per fold
    for changed in ({"repetition": 1}, {"parameter": 1.0}, {"figure": "g"}, {"method_name": "M2"}, {"seed": 2}):
        assert not set(built[1:]) & set(run(**changed)[1:]), changed
    assert not set(built) & set(run(data_name="other"))


def test_darrm_query_draws_and_aggregators_have_their_own_streams(streams):
    rng = np.random.default_rng(3)
    truth = rng.choice([5, 8], 60)
    private = np.where(rng.random((11, 60)) < 0.8, truth, 13 - truth)
    nonprivate = np.where(rng.random((11, 60)) < 0.9, truth, 13 - truth)
    gamma = np.ones(12)

    def run(**keys):
        start = len(streams)
        arguments = {
            "m": 3,
            "queries": 20,
            "draws": 4,
            "sigma": 5.0,
            "gamma": gamma,
            "seed": 1,
            "dataset": "mnist",
            **keys,
        }
        darrm_prediction.simulate_queries(private, nonprivate, truth, [5, 8], **arguments)
        return streams[start:]

    built = run()
    assert distinct(built) and len(built) == 4 * (1 + 3)  # per draw: the query set, then one per aggregator
    for changed in ({"dataset": "fashion_mnist"}, {"m": 1}, {"queries": 10}, {"seed": 2}):
        fresh = set(run(**changed))
        shared = set(built) & fresh
        if "m" in changed:  # the query sets are shared across m by design (paired comparison)
            assert all(keys[1] == "queries" for _, keys in shared) and len(shared) == 4
        else:
            assert not shared, changed


def test_every_teacher_has_its_own_seed():
    seeds = {
        (dataset, kind, teacher): darrm_teachers.teacher_seed(1, dataset, kind, teacher)
        for dataset in ("mnist", "fashion_mnist")
        for kind in ("private", "nonprivate")
        for teacher in range(11)
    }
    assert len(set(seeds.values())) == len(seeds)
    assert darrm_teachers.teacher_seed(1, "mnist", "private", 3) == seeds[("mnist", "private", 3)]
    assert darrm_teachers.teacher_seed(2, "mnist", "private", 3) != seeds[("mnist", "private", 3)]


def test_permute_and_flip_samples_each_algorithm_and_budget_from_its_own_stream(streams):
    permute_and_flip.pmf_bars("Q5", [1.0, 2.0], 200, ["A1 RNM-Exp", "A2 P&F literal"], 0.99, root_seed=1)
    assert distinct(streams) and len(streams) == 4
    assert {keys[-2:] for _, keys in streams} == {(a, 200) for a in ("A1 RNM-Exp", "A2 P&F literal")}
    assert {keys[3] for _, keys in streams} == {1.0, 2.0}


def test_permute_and_flip_convergence_draws_each_sample_size_and_null_from_its_own_stream(streams):
    permute_and_flip.tv_convergence("Q5", 1.0, [100, 1000], 100, ["A1 RNM-Exp"], 20, [0.5, 0.95], root_seed=1)
    assert distinct(streams)
    assert {keys[-1] for _, keys in streams if "null" not in keys} == {100, 1000}
    assert {keys[-1] for _, keys in streams if "null" in keys} == {100, 1000}


def test_privgene_first_selection_draws_each_initial_set_from_its_own_stream(streams):
    from dpreplication.replications import privgene_figures

    algorithm = {"m": 20, "c": 1.25e-3, "svm_C": 10.0}
    privgene_figures.first_selection_random_mass(toy_data(), "lr", [1e-3], seed=1, algorithm=algorithm, draws=3)
    selections = [keys for _, keys in streams if "first selection" in keys]
    assert len(selections) == 3 and distinct(selections) and {k[-1] for k in selections} == {0, 1, 2}


def test_darrm_error_estimates_draw_each_prior_from_its_own_stream(streams):
    import pandas as pd

    from dpreplication.replications import darrm

    shapes = pd.DataFrame(
        {
            "K": 3,
            "m": 1,
            "epsilon": 0.1,
            "Delta": 0.0,
            "delta": 0.0,
            "series": "Sub",
            "l": range(4),
            "gamma": [1.0, 0.5, 0.5, 1.0],
        }
    )
    priors = list(darrm.mj.PRIORS)[:2]
    darrm.ensemble_errors(shapes, "F3", priors, n_draws=10, n_repeats=2, seed=1)
    assert distinct(streams) and {keys[-1] for _, keys in streams} == set(priors)
