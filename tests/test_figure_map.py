"""The figure map (``docs/figures.md``): current, complete, and naming the mechanisms that make each
output, through upstream jobs and checkpoints."""

from pathlib import Path

import pytest

from dpreplication.pipeline import figure_map as fm
from dpreplication.pipeline.snakefile import load_workflow

REPO = Path(__file__).resolve().parents[1]
SNAKEFILE = REPO / "Snakefile"


@pytest.fixture(scope="module")
def rows():
    return fm.figure_map(SNAKEFILE)


def test_committed_map_is_current(rows):
    assert (REPO / "docs" / "figures.md").read_text() == fm.render(rows), (
        "docs/figures.md is stale: python -m dpreplication.pipeline.figure_map docs/figures.md"
    )


def test_every_published_output_is_on_the_map(rows):
    mapped = {(row.paper, name) for row in rows for name in row.outputs}
    published = {
        (path.parent.name, path.stem)
        for path in (REPO / "figures").glob("*/*.csv")
        if path.stem != "scorecard" and path.parent.name in fm.PAPERS and not path.name.endswith(".ledger.csv")
    }
    assert published <= mapped, sorted(published - mapped)
    assert {(p.parent.name, p.stem) for p in (REPO / "figures").glob("*/*.png")} <= mapped


def test_private_figures_show_what_ran_from_their_ledgers(rows):
    """Every committed privacy ledger is on the map, with the mechanisms its sidecar's digest names."""
    ledgers = {path.name.removesuffix(".ledger.csv") for path in (REPO / "figures").glob("*/*.ledger.csv")}
    shown = {entry.split(":")[0]: entry for row in rows for entry in row.spent}
    assert set(shown) == ledgers
    if "fig3_lr" in shown:
        assert "`report_noisy_max[gumbel]`" in shown["fig3_lr"] and "`objective_perturbation`" in shown["fig3_lr"]


@pytest.mark.parametrize(
    "output, mechanisms",
    [
        (
            "density",
            {
                "dpreplication.mechanisms.truncated_laplace.calibrate_truncated_laplace",
                "dpreplication.mechanisms.additive.laplace_pdf",
            },
        ),
        (
            "f2_gamma_shapes",
            {
                "dpreplication.optimisation.gamma_lp.optimise_gamma_cached",
                "dpreplication.mechanisms.majority.gamma_subsampling",
            },
        ),
        (
            "fig3_lr",
            {
                "dpreplication.learning.genetic.privgene",
                "dpreplication.learning.objective_perturbation.fit_private_erm",
                "dpreplication.learning.functional_mechanism.fit_functional_mechanism",
                "dpreplication.learning.output_perturbation.privatise_svm_weights",
                "dpreplication.learning.sample_and_aggregate.gupt_aggregate",
            },
        ),
        (
            "prediction_accuracy",
            {"dpreplication.learning.teachers.train_private", "dpreplication.mechanisms.gnmax.gnmax_aggregate"},
        ),
        ("exact_pmfs", {"dpreplication.mechanisms.selection.permute_and_flip_pmf"}),
    ],
)
def test_a_figure_names_the_mechanisms_that_make_it(rows, output, mechanisms):
    """Through upstream jobs (Fig. 3's comparison jobs, DaRRM's teachers behind a checkpoint) and
    dispatch tables (EXACT_PMFS) down to the functions that add the noise or fit the model."""
    (row,) = [row for row in rows if output in row.outputs]
    assert mechanisms <= set(row.mechanisms), sorted(mechanisms - set(row.mechanisms))


def test_every_rule_is_in_the_rule_graph():
    """A rule hidden from Snakemake's rule graph (behind a checkpoint) must be named in
    BEHIND_CHECKPOINTS, or the map would miss what it computes."""
    parents = fm.rule_graph(SNAKEFILE)
    nodes = set(parents) | set().union(*parents.values())
    assert {rule.name for rule in load_workflow(SNAKEFILE).rules} - nodes == set()
