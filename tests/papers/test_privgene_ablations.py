"""PrivGene gap experiments: the pairing of the schedule and GUPT ablations with the main jobs
(replications/privgene/ablations.py and gupt_variants.py). The reachable set and its
relaxation's solver are tested in ``tests/learning/test_reachable.py``."""

from pathlib import Path

import numpy as np
import pytest
from learning.privgene_helpers import toy

from dpreplication.data.tabular import TabularData
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.privgene import ablations as ab
from dpreplication.replications.privgene import gupt_variants
from dpreplication.replications.privgene import jobs as privgene_jobs

ALGORITHM = profile_config("default", Path(__file__).resolve().parents[2])["privgene"]["algorithm"]
"""The default profile's PrivGene section."""


def test_schedule_ablation_default_reproduces_the_comparison_job():
    """The default schedule is the Figs 3–4 PrivGene job on the same streams; a larger step differs."""
    data = toy(n=2000, d=4)
    schedules = {
        "default": {"initial_scale": 0.05, "decay": 0.95, "schedule": "multiplicative"},
        "big": {"initial_scale": 0.2, "decay": 0.95, "schedule": "multiplicative"},
    }
    frame = ab.schedule_ablation_job(
        data, "lr", 0, seed=7, epsilon=1.0, algorithm=ALGORITHM, schedules=schedules, folds=5, use_folds=[0, 1]
    )
    job = privgene_jobs.comparison("lr", "PrivGene", epsilons=[1.0], algorithm=ALGORITHM, use_folds=[0, 1])
    main = privgene_jobs.run_job(data, job, 0, seed=7)
    default = frame[frame.schedule == "default"].sort_values("fold")
    np.testing.assert_array_equal(default.error.to_numpy(), main.sort_values("fold").error.to_numpy())
    assert frame.noprivacy_error.notna().all()
    summary = ab.schedule_ablation_summary(frame, baseline="big").set_index("schedule")
    assert summary.loc["big", "minus_big"] == 0.0 and "minus_default" not in summary.columns
    assert summary.loc["default", "minus_big"] == pytest.approx(summary.error["default"] - summary.error["big"])


def test_gupt_spec_variant_reproduces_fig5_and_clamping_stays_in_the_box():
    """GUPT with φ = 1 and no clamp is the Fig. 5 job's value; the clamped variant lies in [-1, 1]
    and so has a smaller variance; φ = 1/3 triples the noise on the same draws (larger variance);
    the estimated-range variant leaves the others' draws alone and gets its row with an interval."""
    data = TabularData("blobs", np.random.default_rng(3).uniform(-1, 1, (3000, 2)), None, ("a", "b"), "synthetic")
    variants = {
        "spec": {"eps_fraction": 1, "clamp_output": False, "range": "given"},
        "split": {"eps_fraction": 1 / 3, "clamp_output": False, "range": "given"},
        "clamped": {"eps_fraction": 1, "clamp_output": True, "range": "given"},
        "estimated": {"eps_fraction": 1 / 2, "clamp_output": False, "range": "estimated"},
    }
    jobs = gupt_variants.gupt_variants_job(
        data, 3, seed=5, runs=2, epsilon=0.1, variants=variants, algorithm=ALGORITHM, restarts=2, max_iter=50
    )
    for run in range(2):
        job = privgene_jobs.kmeans(3, "GUPT", epsilons=[0.1], restarts=2, max_iter=50)
        main = privgene_jobs.run_job(data, job, run, seed=5)
        ours = jobs[(jobs.run == run) & (jobs.method == "GUPT spec")].variance.iloc[0]
        assert ours == main.variance.iloc[0]
    ledger = gupt_variants.gupt_variants_ledger(jobs).set_index("method")  # the named split: φε, not ε
    assert ledger.ledger_error.max() <= 1e-9 and ledger.loc["GUPT split", "budget_share"] == pytest.approx(1 / 3)
    assert ledger.loc["GUPT split", "spent_epsilon_max"] == pytest.approx(0.1 / 3, rel=1e-12)
    assert ledger.loc["GUPT estimated", "spent_epsilon_max"] == pytest.approx(0.1, rel=1e-9)  # range + mean
    assert ledger.loc["PrivGene", "mechanisms"] == "report_noisy_max[gumbel]" and (ledger.releases == 2).all()
    summary = gupt_variants.gupt_variants_summary(jobs, variants).set_index("variant")
    assert (
        summary.loc["clamped", "gupt_variance"]
        < summary.loc["spec", "gupt_variance"]
        < summary.loc["split", "gupt_variance"]
    )
    assert summary.loc["clamped", "gupt_variance"] <= 2 * 2 * 2  # every point within the box of every centre
    # GUPT's own range (GUPT-loose) adds its percentile draws on a stream of its own: the other
    # variants' Laplace draws, hence their values, are those of a run without it
    without = gupt_variants.gupt_variants_job(
        data,
        3,
        seed=5,
        runs=2,
        epsilon=0.1,
        variants={"spec": variants["spec"]},
        algorithm=ALGORITHM,
        restarts=2,
        max_iter=50,
    )
    np.testing.assert_array_equal(
        without[without.method == "GUPT spec"].variance, jobs[jobs.method == "GUPT spec"].variance
    )
    assert summary.loc["estimated", "range"] == "estimated" and np.isfinite(summary.loc["estimated", "log10_ratio"])
    assert summary.loc["estimated", "log10_ratio_ci_low"] <= summary.loc["estimated", "log10_ratio_ci_high"]
