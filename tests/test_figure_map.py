"""The figure map (``docs/figures.md``): current, complete, and naming the code that makes each
output, through upstream jobs and checkpoints, and the plotting function that draws it."""

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
    "output, calls, drawn",
    [
        ("worst_case", {"replications.permute_and_flip.exact.worst_case"}, "worst_case.png: curves.worst_case"),
        (
            "density",
            {"replications.truncated_laplace.figures.figure1_density"},
            "density.png: noise_distributions.density_overlay",
        ),
        (
            "fig3_lr",
            {"replications.privgene.jobs.run_job", "replications.privgene.comparison_figures.figure_table"},
            "fig3_lr.png: curves.value_against_epsilon",
        ),
        ("prediction_accuracy", {"replications.darrm.teachers.teacher_votes"}, None),
    ],
)
def test_an_output_names_the_functions_its_scripts_call_and_its_drawing(rows, output, calls, drawn):
    """Through upstream jobs (Fig. 3's comparison jobs, DaRRM's teachers behind a checkpoint); the
    workflow machinery (``pipeline``) is left out."""
    (row,) = [row for row in rows if output in row.outputs]
    assert {f"dpreplication.{call}" for call in calls} <= set(row.calls), sorted(row.calls)
    assert not any(call.startswith(fm.PIPELINE) for call in row.calls)
    assert (drawn in row.drawn) if drawn else row.drawn == ()


def test_every_rule_is_in_the_rule_graph():
    """A rule hidden from Snakemake's rule graph (behind a checkpoint) must be named in
    BEHIND_CHECKPOINTS, or the map would miss what it computes."""
    parents = fm.rule_graph(SNAKEFILE)
    nodes = set(parents) | set().union(*parents.values())
    assert {rule.name for rule in load_workflow(SNAKEFILE).rules} - nodes == set()
