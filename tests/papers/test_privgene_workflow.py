"""PrivGene wiring: the config against the package, and the figure tables
computed from small job tables (pairing, ratios, gaps, Δ checks) and drawn."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dpreplication.learning.genetic import PrivGeneSettings
from dpreplication.pipeline.config import profile_config
from dpreplication.pipeline.snakefile import load_workflow
from dpreplication.plotting import curves
from dpreplication.replications.privgene import figures as pgf
from dpreplication.replications.privgene import methods as pg
from dpreplication.replications.privgene import rule_settings

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_algorithm_section_fits_the_settings(profile):
    config = profile_config(profile, REPO)["privgene"]
    algorithm = config["algorithm"]
    settings = pg.algorithm_settings(algorithm)
    unused = set(algorithm) - set(PrivGeneSettings.__dataclass_fields__)
    assert unused == {"svm_C", "kmeans_delta_factor"}, unused  # used by the fitness, not the GA
    assert settings.c == algorithm["c"] and settings.m == algorithm["m"]
    section = config["choice_of_c"]
    assert section["reference_c"] in section["c_grid"] and algorithm["c"] in section["c_grid"]


def test_every_privgene_rule_reads_its_settings_from_one_function():
    """The Snakefile shapes no PrivGene settings itself: every PrivGene rule's ``settings`` param is
    :func:`rule_settings.rule_settings` of its own name, and every shape there belongs to a rule."""
    workflow = load_workflow(REPO / "Snakefile")
    rules = {rule.name: dict(rule.params.items()) for rule in workflow.rules if rule.name.startswith("privgene_")}
    figures = {f"privgene_{figure}" for figure in workflow.globals["PG_COMPARISON_FIGURES"]}
    shaped = {name.removeprefix("privgene_") for name, params in rules.items() if "settings" in params} - {
        name.removeprefix("privgene_") for name in figures
    }
    assert shaped == set(rule_settings.RULES) - {"comparison_figure", "kmeans_figure"}
    pg = workflow.globals["config"]["privgene"]
    for name, params in rules.items():
        if "settings" not in params:
            continue
        figure_settings = "kmeans_figure" if name == "privgene_fig5" else "comparison_figure"
        rule = figure_settings if name in figures else name.removeprefix("privgene_")
        wildcards = SimpleNamespace(  # US: paper_r has it; c: Fig. 2's jobs have one each
            pg_dataset="US", task="lr", method="PrivGene", c=rule_settings.c_label(pg["choice_of_c"]["c_grid"][-1])
        )
        assert params["settings"](wildcards) == rule_settings.rule_settings(rule, pg, wildcards), name
    with pytest.raises(KeyError, match="known"):
        rule_settings.rule_settings("fig9", pg)


def test_a_job_holds_only_its_methods_keys():
    """Changing a key a method does not use leaves its job's settings (and so the job) untouched."""
    pg = profile_config("default", REPO)["privgene"]
    changed = {**pg, "comparison": {**pg["comparison"], "gupt_eps_fraction": 0.123}}
    wildcards = SimpleNamespace(task="lr")
    before, after = (rule_settings.rule_settings("comparison_job", section, wildcards) for section in (pg, changed))
    assert before["PrivGene"] == after["PrivGene"] and before["FM"] == after["FM"]
    assert after["GUPT"]["gupt_eps_fraction"] == 0.123 != before["GUPT"]["gupt_eps_fraction"]


def test_a_fig2_job_holds_its_one_c_and_not_the_grid():
    """A Fig. 2 job runs the c its wildcard names (read back as the grid's float), so that adding a c
    to the grid reruns no other job; a c outside the grid is refused, naming the grid."""
    pg = profile_config("paper", REPO)["privgene"]
    grid = pg["choice_of_c"]["c_grid"]
    labels = [rule_settings.c_label(c) for c in grid]
    assert len(set(labels)) == len(grid) and [float(label) for label in labels] == grid
    job = rule_settings.rule_settings("choice_of_c_job", pg, SimpleNamespace(task="lr", c=labels[3]))
    assert job["c"] == grid[3] and "c_grid" not in job and job["epsilon"] == pg["choice_of_c"]["epsilon"]
    wider = {**pg, "choice_of_c": {**pg["choice_of_c"], "c_grid": [*grid, 4e-3]}}
    assert rule_settings.rule_settings("choice_of_c_job", wider, SimpleNamespace(task="lr", c=labels[3])) == job
    with pytest.raises(ValueError, match="not in privgene.choice_of_c.c_grid"):
        rule_settings.rule_settings("choice_of_c_job", pg, SimpleNamespace(task="lr", c="0.0042"))


def choice_jobs():
    rows = []
    for c, base in ((0.5e-3, 0.20), (1.25e-3, 0.18), (3e-3, 0.22)):
        for repetition, fold in ((0, 0), (0, 1), (1, 0)):
            rows.append(
                {
                    "dataset": "Adult",
                    "task": "lr",
                    "method": "PrivGene-EEM",
                    "epsilon": 1.0,
                    "c": c,
                    "repetition": repetition,
                    "fold": fold,
                    "r": 10,
                    "error": base + 0.01 * fold,
                }
            )
    return pd.DataFrame(rows)


def test_choice_of_c_pairs_folds_and_finds_the_u():
    table = pgf.choice_of_c(choice_jobs(), 0.5e-3)
    reference = table[np.isclose(table.c, 0.5e-3)].iloc[0]
    assert reference.ratio == 1.0 and reference.ratio_ci_low == 1.0
    at_paper = table[np.isclose(table.c, 1.25e-3)].iloc[0]
    expected = np.mean([0.18 / 0.20, 0.19 / 0.21, 0.18 / 0.20])
    assert at_paper.ratio == pytest.approx(expected) and at_paper.runs == 3
    summary = pgf.choice_of_c_summary(table, 1.25e-3)
    pooled = summary[summary.dataset == "pooled"].iloc[0]
    assert pooled.argmin_c_x1e3 == 1.25 and pooled.left_rise > 0 and pooled.right_rise > 0
    figure = curves.ratio_against_c(table, 1.25e-3)
    assert len(figure.axes) == 1


def trace_jobs():
    rows = []
    for method, final in (("EEM", 0.25), ("EM", 0.33)):
        for fold in range(2):
            for iteration in (1, 2, 3):
                scale = 0.5 * 0.95 ** (iteration - 1)
                rows.append(
                    {
                        "dataset": "US",
                        "task": "lr",
                        "method": method,
                        "epsilon": 1.0,
                        "repetition": 0,
                        "fold": fold,
                        "r": 3,
                        "iteration": iteration,
                        "epsilon_spent": 1 / 3,
                        "mutation_scale": scale if iteration < 3 else np.nan,
                        "delta1": 300.0 if iteration == 1 else 15.0,
                        "delta2": 500.0 if iteration == 1 else 4 * 0.5 * 0.95 ** (iteration - 2),
                        "delta_used": 300.0 if iteration == 1 else 2.0,
                        "selected_fitness_rank": 0,
                        "error": 0.5 if iteration == 1 else final + 0.01 * fold,
                    }
                )
    return pd.DataFrame(rows)


def test_eem_vs_em_tables_gap_and_dampening_checks():
    jobs = trace_jobs()
    references = pd.DataFrame(
        {"dataset": "US", "task": "lr", "method": ["NoPrivacy", "Majority"], "error": [0.2, 0.48]}
    )
    table = pgf.eem_vs_em(jobs, references)
    assert set(table.method) == {"EEM", "EM", "NoPrivacy", "Majority"}
    summary = pgf.eem_vs_em_summary(table, jobs).iloc[0]
    assert summary.final_gap == pytest.approx(0.08) and summary.first_gap == 0 and summary.noprivacy_error == 0.2
    # Paired by fold, the fold-to-fold spread (0.01 per fold, the same in both variants) cancels:
    assert summary.final_gap_ci_high - summary.final_gap_ci_low == pytest.approx(0, abs=1e-12)
    assert summary.gap_growth_ci_low == pytest.approx(0.08) == summary.gap_growth_ci_high
    trace = pgf.dampening_trace(jobs, {"svm_C": 10})
    deltas = pgf.dampening_summary(trace)
    assert (deltas.max_abs_delta2_over_4bs_minus_1 < 1e-12).all()
    assert (deltas.max_delta2_over_delta1_after_first < 1).all() and (deltas.first_min_delta2_over_delta1 > 1).all()
    assert len(curves.error_against_iteration(table, "t").axes) == 1
    assert len(curves.dampening_against_iteration(trace).axes) == 1
