"""Random streams: every random step of a job draws from its own stream, named by all of its keys.

A dropped key silently reuses one stream for several repetitions, folds, draws, teachers or
queries, and narrows every confidence interval. Each call site of ``seeding.generator`` in
``src/`` and ``workflow/scripts/`` is described below by the public function that reaches it
(tiny inputs), the names of the keys it passes, and how each key is made to vary: within one run
(folds, ε, draws, teachers, algorithms) or by a second run that changes one argument. While the
function runs, every stream it builds is recorded by its state (the first words of its
``SeedSequence``), and :func:`check` asserts that

1. one run builds exactly the expected number of distinct streams (a key dropped from a key that
   varies within the run merges streams);
2. a run that changes one key shares no stream with the first (except the streams that are
   shared by design, e.g. the folds of one repetition across methods);
3. the same arguments rebuild the same streams and give identical outputs.

The negative controls drop each varying key in turn at the call site (the recording generator
removes it before building the stream) and show that :func:`check` then fails: each check can
kill the mutant "this call site forgot that key".
"""

from __future__ import annotations

import runpy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dpreplication import seeding
from dpreplication.data.tabular import TabularData
from dpreplication.learning import protocol
from dpreplication.mechanisms import majority, selection
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.darrm import analytic, lemmas, prediction
from dpreplication.replications.darrm import verified as darrm_verified
from dpreplication.replications.permute_and_flip import exact as permute_and_flip
from dpreplication.replications.permute_and_flip import sampling
from dpreplication.replications.privgene import baseline_checks as pbc
from dpreplication.replications.privgene import datasets as privgene_datasets
from dpreplication.replications.privgene import jobs
from dpreplication.replications.privgene import verified as privgene_verified
from dpreplication.replications.privgene.methods import LinearTask

SCRIPTS = Path(__file__).resolve().parents[2] / "workflow" / "scripts"
ALGORITHM = {**profile_config("default", Path(__file__).resolve().parents[2])["privgene"]["algorithm"], "m": 20,
             "constant_classifiers": 2}  # fmt: skip
"""The default profile's PrivGene section, with fewer candidates for speed."""

DATA_SETTINGS = profile_config("default", Path(__file__).resolve().parents[2])["privgene"]["data"]
"""The default profile's PrivGene data settings (scaling, thresholds, the Image size)."""


# --------------------------------------------------------------------------- recording and checking


class Recorder:
    """Stands in for ``seeding.generator``: builds the same stream and records its keys and state.

    ``drop = (owns, position)`` removes the key at ``position`` from the keys of the streams that
    ``owns(keys)`` picks, as a call site that forgot that key would (the negative controls)."""

    def __init__(self, original):
        self.original = original
        self.built: list[tuple[tuple, tuple]] = []
        self.drop: tuple[Callable, int] | None = None

    def __call__(self, root_seed, *keys):
        named = keys  # as the call site passed them (the sites below are described by these)
        if self.drop is not None and self.drop[0](keys):
            keys = keys[: self.drop[1]] + keys[self.drop[1] + 1 :]
        state = tuple(seeding.seed_sequence(root_seed, *keys).generate_state(4).tolist())
        self.built.append((named, state))
        return self.original(root_seed, *keys)

    def run(self, function, **changes):
        """``(output, [(keys as passed, state of the stream built), ...])`` of one call."""
        start = len(self.built)
        output = function(**changes)
        return output, self.built[start:]


@pytest.fixture
def streams(monkeypatch):
    recorder = Recorder(seeding.generator)
    monkeypatch.setattr(seeding, "generator", recorder)
    return recorder


@dataclass
class Site:
    """One call site: ``run(**changes)`` calls its public function; ``keys`` names the keys it passes
    (after the root seed); ``owns(keys)`` picks its streams among those the run builds; ``distinct``
    is the number of distinct streams of ``run()``; ``varied`` maps each varying key to the change
    of arguments that varies it (``None``: it varies within one run); ``shared(key, keys)`` names
    the streams a run changing ``key`` may share by design."""

    run: Callable
    keys: tuple[str, ...]
    owns: Callable[[tuple], bool]
    distinct: int
    varied: dict[str, dict | None]
    shared: Callable[[str, tuple], bool] = field(default=lambda key, keys: False)


def assert_same(a, b) -> None:
    """Equal outputs, whatever their type (frames, arrays, dicts, sequences, scalars)."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def check(site: Site, streams: Recorder) -> None:
    """The three properties of the module docstring, for one call site."""
    output, built = streams.run(site.run)
    assert any(site.owns(keys) for keys, _ in built), "the call site built no stream"
    states = {state for _, state in built}
    assert len(states) == site.distinct, f"{len(states)} distinct streams in one run, expected {site.distinct}"
    for key, change in site.varied.items():
        if change is None:
            continue
        _, other = streams.run(site.run, **change)
        allowed = {state for keys, state in built if site.shared(key, keys)}
        reused = (states & {state for _, state in other}) - allowed
        assert not reused, f"changing {key} ({change}) reuses {len(reused)} stream(s)"
    again, rebuilt = streams.run(site.run)
    assert rebuilt == built, "the same arguments built other streams"
    assert_same(again, output)


def with_defaults(function, **defaults):
    """``run(**changes)``: ``function`` called with ``defaults`` updated by ``changes``."""
    return lambda **changes: function(**{**defaults, **changes})


def tagged(*prefix):
    return lambda keys: keys[: len(prefix)] == prefix


def toy_data(name: str = "toy", n: int = 240) -> TabularData:
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (n, 3))
    return TabularData(name=name, features=X, labels=(X[:, 0] > 0).astype(float), columns=("a", "b", "c"), source="t")


def folds_shared(key, keys):
    """The folds of one repetition are shared by every figure, task, method and parameter (paired)."""
    return keys[1] == "folds" and key not in ("dataset", "repetition", "seed")


# --------------------------------------------------------------------------- the call sites


def folds_site(patch):
    def run(seed=1, dataset="toy", repetition=0):
        return protocol.repetition_folds(60, 3, seed, "privgene", dataset, repetition)

    return Site(
        run,
        ("paper", "tag", "dataset", "repetition"),
        tagged("privgene", "folds"),
        1,
        {"dataset": {"dataset": "other"}, "repetition": {"repetition": 1}, "seed": {"seed": 2}},
    )


def privgene_job_site(patch):
    """The one-ε jobs (Figs 2, 6–7, the references): one stream per fold, keyed by the parameter."""

    def run(data="toy", figure="f", task="lr", method="Majority", parameter=0.5, repetition=0, seed=1):
        job = jobs.Job(figure, LinearTask(task), "Majority", (0.5,), label=method, parameter=(parameter,),
                       epsilon_keyed=False, folds=3)  # fmt: skip
        return jobs.run_job(toy_data(data), job, repetition, seed=seed)

    return Site(
        run,
        ("paper", "figure", "dataset", "task", "method", "parameter", "repetition", "fold"),
        lambda keys: keys[0] == "privgene" and keys[1] in ("f", "g"),
        1 + 3,  # the folds, then one stream per fold
        {
            "figure": {"figure": "g"},
            "dataset": {"data": "other"},
            "task": {"task": "svm"},
            "method": {"method": "M2"},
            "parameter": {"parameter": 1.0},
            "repetition": {"repetition": 1},
            "fold": None,
            "seed": {"seed": 2},
        },
        folds_shared,
    )


def comparison_site(patch):
    run = with_defaults(
        lambda data, task, method, repetition, seed, **keys: jobs.run_job(
            toy_data(data), jobs.comparison(task, method, **keys), repetition, seed=seed
        ),
        data="toy",
        task="lr",
        method="PrivateERM",
        repetition=0,
        seed=1,
        epsilons=[0.1, 0.5],
        folds=3,
        use_folds=None,
    )
    return Site(
        run,
        ("paper", "figure", "dataset", "task", "method", "repetition", "fold", "epsilon"),
        tagged("privgene", "comparison"),
        1 + 3 * 2,  # the folds, then one stream per (fold, ε)
        {
            "dataset": {"data": "other"},
            "task": {"task": "svm"},
            "method": {"method": "FM"},
            "repetition": {"repetition": 1},
            "fold": None,
            "epsilon": None,
            "seed": {"seed": 2},
        },
        folds_shared,
    )


def baseline_checks_site(patch):
    """The PrivateERM baseline checks: per fold, one stream per (method, task, Λ, ε) of
    :func:`~dpreplication.replications.privgene.baseline_checks.job_points`. The diffprivlib rows
    draw their stream (and the library's seed from it) before the library is imported, so the site
    is checked whether or not the ``oracles`` extra is installed (absent: its rows say so)."""
    run = with_defaults(
        lambda data, **keys: pbc.baseline_checks_job(toy_data(data), **keys),
        data="toy",
        repetition=0,
        seed=1,
        tasks=["lr", "svm"],
        epsilons=[0.5, 1.0],
        # one Λ for both tasks: only the task key then tells their streams apart
        private_erm={"erm_lr_regulariser": 1e-3, "erm_svm_regulariser": 1e-3, "erm_huber_h": 0.5, "svm_C": 10.0},
        sweep_epsilon=1.0,
        sweep_regularisers=[1e-3, 1e-1],
        folds=3,
        use_folds=None,
    )
    return Site(
        run,
        ("paper", "figure", "dataset", "task", "method", "regulariser", "repetition", "fold", "epsilon"),
        tagged("privgene", "baseline_checks"),
        1 + 3 * 6,  # the folds, then per fold: the library at 2 tasks × 2 ε, and ours at the sweep's 2 Λ
        {
            "dataset": {"data": "other"},
            "task": None,
            "method": None,
            "regulariser": None,
            "repetition": {"repetition": 1},
            "fold": None,
            "epsilon": None,
            "seed": {"seed": 2},
        },
        folds_shared,
    )


def kmeans_site(patch):
    run = with_defaults(
        lambda data, k, method, run, seed, **keys: jobs.run_job(
            toy_data(data, 120), jobs.kmeans(k, method, **keys), run, seed=seed
        ),
        data="toy",
        k=2,
        method="PrivGene",
        run=0,
        seed=1,
        epsilons=[0.5, 1.0],
        algorithm=ALGORITHM,
    )
    return Site(
        run,
        ("paper", "figure", "dataset", "task", "method", "repetition", "fold", "epsilon"),
        tagged("privgene", "kmeans"),
        2,  # one stream per ε
        {
            "dataset": {"data": "other"},
            "task": {"k": 3},
            "method": {"method": "GUPT", "restarts": 1, "max_iter": 5},
            "repetition": {"run": 1},
            "epsilon": None,
            "seed": {"seed": 2},
        },
    )


def darrm_votes():
    rng = np.random.default_rng(3)
    truth = rng.choice([5, 8], 60)
    private = np.where(rng.random((11, 60)) < 0.8, truth, 13 - truth)
    nonprivate = np.where(rng.random((11, 60)) < 0.9, truth, 13 - truth)
    return private, nonprivate, truth


def darrm_prediction_run():
    private, nonprivate, truth = darrm_votes()
    return with_defaults(
        lambda **keys: prediction.simulate_queries(private, nonprivate, truth, [5, 8], **keys),
        m=3,
        queries=20,
        draws=4,
        sigma=5.0,
        gamma=majority.gamma_subsampling(11, 3),
        seed=1,
        dataset="mnist",
        voter_epsilon=2.0,  # the guard's budget: σ = 5 and γ_Sub spend less at m = 1 and 3
        voter_delta=1e-4,
        delta_prime=1e-4,
    )


DARRM_PREDICTION_CHANGES = {"dataset": {"dataset": "fashion_mnist"}, "queries": {"queries": 10}, "seed": {"seed": 2}}


def query_site(patch):
    return Site(
        darrm_prediction_run(),
        ("paper", "tag", "dataset", "queries", "draw"),
        tagged("darrm", "queries"),
        4 * (1 + 3),  # per draw: the query set, then one per aggregator
        {**DARRM_PREDICTION_CHANGES, "draw": None},
    )  # a change of m is the aggregators' (below)


def aggregator_site(patch):
    return Site(
        darrm_prediction_run(),
        ("paper", "tag", "dataset", "m", "queries", "draw", "method"),
        tagged("darrm", "aggregate"),
        4 * (1 + 3),
        {
            **DARRM_PREDICTION_CHANGES,
            "m": {"m": 1, "gamma": majority.gamma_subsampling(11, 1)},
            "draw": None,
            "method": None,
        },
        lambda key, keys: key == "m" and keys[1] == "queries",
    )  # the same queries at every m (paired)


def stubbed_teacher_votes(patch):
    """``teacher_votes`` with the training stubbed out: each teacher's "model" is the torch seed it
    was given, and its votes are drawn from that seed, so the votes show which seed each got."""
    learning = pytest.importorskip("dpreplication.learning.teachers", reason="needs the learning extra (torch)")
    from dpreplication.replications.darrm import teachers as darrm_teachers

    images = np.arange(40, dtype=float)[:, None]

    def split(files, dataset, split, classes):
        return images, np.tile([5, 8], 20), np.arange(40)

    def train(x, y, kind, steps, settings, seed, device):
        return seed, SimpleNamespace(steps=1, epochs=1, sample_rate=0.1, seconds=0.0), 0.0, 0.0

    patch.setattr(darrm_teachers, "two_class_split", split)
    patch.setattr(darrm_teachers, "_train_teacher", train)
    patch.setattr(learning, "configure_torch", lambda threads: "cpu")
    patch.setattr(learning, "predict", lambda model, x, device: np.random.default_rng(model).integers(10, size=len(x)))
    settings = {
        "classes": [5, 8],
        "train_size": None,
        "teachers": 3,
        "shard_size": None,
        "remainder": "last",
        "batch_size": 4,
        "private_steps": 1,
        "Delta": 1e-5,
        "datasets": {"mnist": {"epsilon_teacher": 1.0}, "fashion_mnist": {"epsilon_teacher": 1.0}},
    }

    def run(dataset="mnist", kind="private", seed=1, replicate=0):
        arrays, table = darrm_teachers.teacher_votes({}, dataset, kind, settings, seed, replicate=replicate)
        return arrays["votes"]

    return run


def teacher_site(patch):
    return Site(
        stubbed_teacher_votes(patch),
        ("paper", "tag", "dataset", "kind", "teacher"),
        tagged("darrm", "teachers"),
        3,
        {"dataset": {"dataset": "fashion_mnist"}, "kind": {"kind": "nonprivate"}, "teacher": None, "seed": {"seed": 2}},
    )


def teacher_replicate_site(patch):
    """Seed replicate 1 of the same teachers: its own streams, apart from replicate 0's and 2's."""
    run = stubbed_teacher_votes(patch)
    return Site(
        with_defaults(run, replicate=1),
        ("paper", "tag", "dataset", "kind", "teacher", "replicate tag", "replicate"),
        tagged("darrm", "teachers"),
        3,
        {"replicate": {"replicate": 2}, "dataset": {"dataset": "fashion_mnist"}, "teacher": None, "seed": {"seed": 2}},
    )


def validation_site(patch):
    """The ablation's validation part of the test pool: one stream per (seed, dataset)."""
    from dpreplication.replications.darrm import teacher_ablation_choice

    return Site(
        with_defaults(teacher_ablation_choice.validation_mask, size=40, share=0.5, seed=1, dataset="mnist"),
        ("paper", "tag", "dataset"),
        tagged("darrm", "validation"),
        1,
        {"dataset": {"dataset": "fashion_mnist"}, "seed": {"seed": 2}},
    )


PF_SAMPLING_KEYS = ("paper", "figure", "vector", "epsilon", "algorithm", "n")
PF_ALGORITHMS = ["A1 RNM-Exp", "A2 P&F literal"]


def pmf_bars_site(patch):
    run = with_defaults(
        sampling.pmf_bars,
        vector="Q5",
        epsilons=[1.0, 2.0],
        n=200,
        algorithms=PF_ALGORITHMS,
        confidence=0.99,
        root_seed=1,
    )
    return Site(
        run,
        PF_SAMPLING_KEYS,
        tagged("permute_and_flip", "pmf_bars"),
        2 * 2,
        {"vector": {"vector": "QT"}, "epsilon": None, "algorithm": None, "n": {"n": 300}, "seed": {"root_seed": 2}},
    )


def pp_plot_site(patch):
    run = with_defaults(sampling.pp_plot, vector="Q5", epsilon=1.0, n=200, algorithms=PF_ALGORITHMS, root_seed=1)
    return Site(
        run,
        PF_SAMPLING_KEYS,
        tagged("permute_and_flip", "pp_plot"),
        2,
        {
            "vector": {"vector": "QT"},
            "epsilon": {"epsilon": 2.0},
            "algorithm": None,
            "n": {"n": 300},
            "seed": {"root_seed": 2},
        },
    )


def lemma_chain_site(patch):
    cases = [{"vector": "Q5", "epsilon": 1.0}, {"vector": "Q5", "epsilon": 2.0}, {"vector": "QT", "epsilon": 1.0}]
    run = with_defaults(sampling.lemma_chain, cases=cases, n=200, literal_n_large_k=100, large_k=50, root_seed=1)
    return Site(
        run,
        PF_SAMPLING_KEYS,
        tagged("permute_and_flip", "lemma_chain"),
        3 * len({a for pair in sampling.LEMMA_CHAIN for a in pair[:2]}),  # cases × algorithms
        {"vector": None, "epsilon": None, "algorithm": None, "n": {"n": 300}, "seed": {"root_seed": 2}},
    )


def tv_convergence_run():
    return with_defaults(
        sampling.tv_convergence,
        vector="Q5",
        epsilon=1.0,
        sample_sizes=[100, 200],
        literal_max_n=100,
        algorithms=PF_ALGORITHMS,
        null_draws=20,
        null_quantiles=[0.5, 0.95],
        root_seed=1,
    )


def tv_convergence_site(patch):
    # per n: the null band, A1, and A2 where n ≤ literal_max_n
    return Site(
        tv_convergence_run(),
        ("paper", "figure", "algorithm", "n"),
        lambda keys: keys[:2] == ("permute_and_flip", "tv_convergence") and keys[2] != "null",
        2 + 2 + 1,
        {"algorithm": None, "n": None, "seed": {"root_seed": 2}},
    )


def tv_null_site(patch):
    return Site(
        tv_convergence_run(),
        ("paper", "figure", "null", "n"),
        tagged("permute_and_flip", "tv_convergence", "null"),
        2 + 2 + 1,
        {"n": None, "seed": {"root_seed": 2}},
    )


def utility_site(patch):
    """Both tasks get the same ε grid (its end, ε at error 1, is fixed here), so only the task key
    separates their Monte Carlo streams."""
    patch.setattr(selection, "epsilon_for_expected_error", lambda *args, **kwargs: 1.0)
    run = with_defaults(
        permute_and_flip.utility_curves,
        histogram=np.array([3.0, 1, 0, 5, 2]),
        dataset="toy",
        tasks=["mode", "median"],
        n_epsilons=5,
        epsilon_min=0.01,
        mc_epsilons=2,
        mc_draws=100,
        root_seed=1,
    )
    return Site(
        run,
        ("paper", "figure", "dataset", "task", "epsilon", "algorithm", "n"),
        tagged("permute_and_flip", "utility"),
        2 * 2,  # tasks × Monte Carlo ε
        {
            "dataset": {"dataset": "other"},
            "task": None,
            "epsilon": None,
            "n": {"mc_draws": 200},
            "seed": {"root_seed": 2},
        },
    )


def lemma_internals_site(patch):
    run = with_defaults(sampling.lemma_internals, vector="Q5", epsilon=1.0, n=200, root_seed=1)
    return Site(
        run,
        ("paper", "figure", "vector", "epsilon", "n"),
        tagged("permute_and_flip", "lemma_internals"),
        1,
        {"vector": {"vector": "QT"}, "epsilon": {"epsilon": 2.0}, "n": {"n": 300}, "seed": {"root_seed": 2}},
    )


def privacy_audit_site(patch):
    run = with_defaults(permute_and_flip.privacy_audit, pairs=5, max_k=4, epsilon_range=(0.5, 2.0), root_seed=1)
    return Site(run, ("paper", "figure"), tagged("permute_and_flip", "privacy_audit"), 1, {"seed": {"root_seed": 2}})


def first_selection_site(patch):
    def run(data="toy", task="lr", seed=1):
        return privgene_verified.first_selection_random_mass(
            toy_data(data), task, [1e-3], seed=seed, algorithm=ALGORITHM, draws=3
        )

    return Site(
        run,
        ("paper", "tag", "dataset", "task", "draw"),
        tagged("privgene", "first selection"),
        1 + 3,
        {"dataset": {"data": "other"}, "task": {"task": "svm"}, "draw": None, "seed": {"seed": 2}},
        folds_shared,
    )


def privgene_audit_site(patch):
    """The exact EEM audits: one stream per (task, regime), shared by design by the selectors and
    the negative control (Δ/4) of that cell, so they audit the same random neighbours."""
    run = with_defaults(privgene_verified.verified_numbers, seed=1, algorithm=ALGORITHM, audit_random_tuples=3)
    return Site(
        run,
        ("paper", "tag", "task", "regime"),
        tagged("privgene", "audit"),
        1 + 2 * 2,  # + the budget check
        {"task": None, "regime": None, "seed": {"seed": 2}},
    )


def image_data_site(patch):
    def run(seed=1):
        return privgene_datasets.prepare_dataset("Image", [], seed, **{**DATA_SETTINGS, "image_pixels": 200}).features

    return Site(run, ("paper", "tag", "dataset"), tagged("privgene", "data"), 1, {"seed": {"seed": 2}})


def ensemble_errors_site(patch):
    shapes = pd.concat(
        pd.DataFrame(
            {
                "K": K,
                "m": 1,
                "epsilon": 0.1,
                "Delta": 0.0,
                "delta": 0.0,
                "series": "Sub",
                "l": range(K + 1),
                "gamma": analytic.mj.gamma_subsampling(K, 1),
            }
        )
        for K in (3, 5)
    )
    priors = list(analytic.majority_utility.PRIORS)[:2]
    run = with_defaults(
        analytic.ensemble_errors,
        shapes=shapes,
        figure="F3",
        actual_priors=priors,
        n_draws=10,
        n_repeats=2,
        seed=1,
        zero_below=1e-5,
    )
    return Site(
        run,
        ("paper", "figure", "K", "prior"),
        lambda keys: keys[:2] in (("darrm", "F3"), ("darrm", "F4")),
        2 * 2,
        {"figure": {"figure": "F4"}, "K": None, "prior": None, "seed": {"seed": 2}},
    )


def darrm_run(seed):
    """The verified table's shared settings, with small Monte-Carlo sizes."""
    return darrm_verified.Run(seed, "highs", draws_small=50, draws_large=50, points=50)


def darrm_monte_carlo_table_site(patch):
    def run(setting="S", actual="T_U", seed=1):
        cases = [darrm_verified.Case(f"E[Sub] under {actual}", setting, 11, m, 0.1, 0.0) for m in (1, 3)]
        return darrm_verified.ensemble_errors(cases, darrm_run(seed))

    return Site(
        run,
        ("paper", "tag", "setting", "actual"),
        lambda keys: keys[:2] == ("darrm", "verified") and keys[2] in ("S", "S2"),
        1,
        {"setting": {"setting": "S2"}, "actual": {"actual": "T_P"}, "seed": {"seed": 2}},
    )


def darrm_rr_site(patch):
    def run(seed=1):
        quantity = "random-point privacy violation of gamma_const"
        cases = [darrm_verified.Case(quantity, "RR", 11, m, 0.1, 0.0) for m in (1, 3, 5)]
        return [lemmas.constant_random_point_violation(case, darrm_run(seed)) for case in cases]

    return Site(
        run,
        ("paper", "tag", "setting", "m"),
        tagged("darrm", "verified", "RR"),
        3,
        {"m": None, "seed": {"seed": 2}},
    )


def darrm_vertex_site(patch):
    def run(seed=1):
        quantity = "random-point violation minus vertex violation of gamma_opt"
        cases = [
            darrm_verified.Case(quantity, "vertex reduction", 11, m, 0.1, Delta)
            for Delta in (0.0, 1e-5)
            for m in (2, 3, 5)
        ]
        return [lemmas.vertex_reduction_gap(case, darrm_run(seed)) for case in cases]

    return Site(
        run,
        ("paper", "tag", "setting", "m", "Delta"),
        tagged("darrm", "verified", "vertex"),
        3 * 2,
        {"m": None, "Delta": None, "seed": {"seed": 2}},
    )


def truncated_laplace_scripts_site(patch):
    """The two random scripts of the truncated-Laplace rules, run as Snakemake runs them, with the
    computation stubbed: each returns the first draws of the stream the script built."""
    from dpreplication.pipeline import jobs
    from dpreplication.plotting import noise_distributions
    from dpreplication.replications.truncated_laplace import audits as tl

    published = []
    patch.setattr(jobs, "start", lambda snakemake: None)
    patch.setattr(jobs, "publish", lambda snakemake, data, *args, **kwargs: published.append(data))
    patch.setattr(noise_distributions, "monte_carlo_moments", lambda data: None)
    patch.setattr(tl, "monte_carlo_moments", lambda rng, **settings: rng.random(3))
    patch.setattr(tl, "calibration_audit", lambda rng, **settings: rng.random(3))
    patch.setattr(tl, "calibration_audit_summary", lambda audit: audit)

    def run(script="monte_carlo", seed=1):
        snakemake = SimpleNamespace(params=SimpleNamespace(seed=seed, settings={}))
        runpy.run_path(str(SCRIPTS / "truncated_laplace" / f"{script}.py"), init_globals={"snakemake": snakemake})
        return published[-1]

    return Site(
        run,
        ("paper", "figure"),
        tagged("truncated_laplace"),
        1,
        {"figure": {"script": "calibration_audit"}, "seed": {"seed": 2}},
    )


SITES = {
    "protocol folds": folds_site,
    "PrivGene job": privgene_job_site,
    "PrivGene comparison job": comparison_site,
    "PrivGene baseline checks": baseline_checks_site,
    "PrivGene k-means job": kmeans_site,
    "PrivGene first selection": first_selection_site,
    "PrivGene EEM audit": privgene_audit_site,
    "PrivGene Image data": image_data_site,
    "DaRRM query sets": query_site,
    "DaRRM aggregators": aggregator_site,
    "DaRRM teachers": teacher_site,
    "DaRRM teacher replicates": teacher_replicate_site,
    "DaRRM ablation validation part": validation_site,
    "DaRRM error estimates": ensemble_errors_site,
    "DaRRM verified Monte Carlo": darrm_monte_carlo_table_site,
    "DaRRM verified RR": darrm_rr_site,
    "DaRRM verified vertex reduction": darrm_vertex_site,
    "P&F pmf bars": pmf_bars_site,
    "P&F pp plot": pp_plot_site,
    "P&F lemma chain": lemma_chain_site,
    "P&F TV convergence": tv_convergence_site,
    "P&F TV null band": tv_null_site,
    "P&F utility": utility_site,
    "P&F lemma internals": lemma_internals_site,
    "P&F privacy audit": privacy_audit_site,
    "truncated Laplace scripts": truncated_laplace_scripts_site,
}


def build(name: str, monkeypatch) -> Site:
    return SITES[name](monkeypatch)


# --------------------------------------------------------------------------- the tests


def test_generator_keys_name_the_stream():
    """Keys, their order and their number name the stream; 1 and 1.0 are one key (YAML gives either)."""
    draw = lambda *keys: seeding.generator(7, *keys).random(4).tolist()  # noqa: E731
    assert draw("a", 1) == draw("a", 1.0)
    assert len({tuple(draw(*keys)) for keys in [("a", 1), ("a", 2), ("b", 1), (1, "a"), ("a",), ("a", 1, 0)]}) == 6
    assert seeding.generator(8, "a", 1).random() != seeding.generator(7, "a", 1).random()


def test_every_call_site_is_covered():
    """Every module that builds a stream appears in the table of call sites (a new call site must
    be added to it)."""
    roots = [Path(__file__).resolve().parents[2] / "src" / "dpreplication", SCRIPTS]
    calling = {
        path.relative_to(root).with_suffix("").as_posix()
        for root in roots
        for path in root.rglob("*.py")
        if path.name != "seeding.py"
        and ("generator(" in (text := path.read_text()) or "seed_sequence(" in text)
        and "seeding" in text
    }
    covered = {
        "learning/protocol",
        "replications/privgene/jobs",
        "replications/privgene/baseline_checks",
        "replications/privgene/verified",
        "replications/privgene/datasets",
        "replications/darrm/prediction",
        "replications/darrm/teachers",
        "replications/darrm/teacher_ablation_choice",
        "replications/darrm/analytic",
        "replications/darrm/lemmas",
        "replications/darrm/verified",
        "replications/permute_and_flip/exact",
        "replications/permute_and_flip/sampling",
        "truncated_laplace/monte_carlo",
        "truncated_laplace/calibration_audit",
    }
    assert calling <= covered, f"call sites without a stream test: {sorted(calling - covered)}"


@pytest.mark.parametrize("name", list(SITES))
def test_each_call_site_gives_each_key_its_own_stream(name, streams, monkeypatch):
    check(build(name, monkeypatch), streams)


def varying_keys():
    """``(site, key)`` for every key that varies at every call site (the seed is the root, not a key);
    a site whose optional library is absent contributes none (its own test skips, saying why)."""
    sites = {}
    for name in SITES:
        with pytest.MonkeyPatch.context() as patch:
            try:
                sites[name] = build(name, patch)
            except pytest.skip.Exception:
                continue
    return [(name, key) for name, site in sites.items() for key in site.varied if key in site.keys]


@pytest.mark.parametrize("name,key", varying_keys())
def test_dropping_any_key_at_any_call_site_fails_the_check(name, key, streams, monkeypatch):
    """Negative control: the call site forgets ``key``; :func:`check` must fail."""
    site = build(name, monkeypatch)
    streams.drop = (site.owns, site.keys.index(key))
    with pytest.raises(AssertionError, match="reuses|distinct streams in one run"):
        check(site, streams)


@pytest.mark.parametrize("name", ["protocol folds", "DaRRM aggregators", "P&F pmf bars", "truncated Laplace scripts"])
def test_unseeded_draws_fail_the_check(name, streams, monkeypatch):
    """Negative control for property 3: generators drawing fresh OS entropy, whatever the keys,
    give a rerun different outputs."""
    streams.original = lambda root_seed, *keys: np.random.default_rng()
    with pytest.raises(AssertionError, match="Arrays are not equal|DataFrame"):
        check(build(name, monkeypatch), streams)


def test_equal_keys_give_identical_draws_and_distinct_keys_distinct_draws():
    """The draws themselves, not only the seeds: the folds of two repetitions are different
    permutations, and the same repetition gives the same permutation."""
    first = protocol.repetition_folds(60, 3, 1, "privgene", "toy", 0)
    again = protocol.repetition_folds(60, 3, 1, "privgene", "toy", 0)
    other = protocol.repetition_folds(60, 3, 1, "privgene", "toy", 1)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(first, again))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(first, other))
    assert sorted(np.concatenate([test for _, test in first]).tolist()) == list(range(60))
