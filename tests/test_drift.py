"""Drift check: the gate itself (it must fail on a perturbed reference) and, marked `workflow`,
the quick profile regenerated end to end and compared with the committed references."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpreplication.pipeline import drift, figure_diff
from dpreplication.pipeline.instruction_sets import JOB_ENVIRONMENT
from dpreplication.plotting import new_figure, save_png
from dpreplication.scorecard import STATUSES, read_scorecard

REPO = Path(__file__).resolve().parents[1]
REFERENCES = REPO / "tests" / "references" / "quick"
PRODUCED = REPO / "results" / "quick" / "figures"
DIFF = REPO / "results" / "quick" / "figure-diff"
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--directory", str(REPO), "--snakefile", str(REPO / "Snakefile")]


def write_pair(tmp_path, frame):
    for side in ("reference", "produced"):
        (tmp_path / side / "paper").mkdir(parents=True)
        frame.to_csv(tmp_path / side / "paper" / "fig.csv", index=False)
    return tmp_path / "produced", tmp_path / "reference"


def test_identical_trees_pass(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"x": [1.0, 2.0], "label": ["a", "b"]}))
    assert drift.check(produced, reference) == []


def test_perturbed_reference_value_fails_naming_figure_column_and_tolerance(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"x": [1.0, 2.0], "label": ["a", "b"]}))
    pd.DataFrame({"x": [1.0, 2.0 * (1 + 1e-6)], "label": ["a", "b"]}).to_csv(
        reference / "paper" / "fig.csv", index=False
    )
    problems = drift.check(produced, reference)
    assert len(problems) == 1
    assert "paper/fig" in problems[0] and "'x'" in problems[0] and "rtol=1e-09" in problems[0]


def test_per_table_tolerance_is_honoured(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"x": [1.0]}))
    pd.DataFrame({"x": [1.001]}).to_csv(reference / "paper" / "fig.csv", index=False)
    (reference / "tolerances.yaml").write_text("tables:\n  paper/fig: {rtol: 0.01}\n")
    assert drift.check(produced, reference) == []


def write_trained(reference, spread_rows, key=None):
    """Declare paper/fig trained (keyed by ``key``) and write its measured spread."""
    settings = f"{{key: {key}}}" if key else "{}"
    (reference / "tolerances.yaml").write_text(f"trained:\n  safety_factor: 2\n  tables:\n    paper/fig: {settings}\n")
    pd.DataFrame(spread_rows, columns=drift.SPREAD_COLUMNS).to_csv(reference / drift.SPREAD, index=False)


def test_another_machines_run_joins_the_measured_spread_and_equal_infinities_never_moved(tmp_path):
    """A run on another CPU is measured beside the instruction sets' rows (kept), and a cell that is
    +inf on both sides did not move (inf − inf once read as an infinite deviation)."""
    produced, reference = write_pair(tmp_path, pd.DataFrame({"accuracy": [0.50, np.inf], "n": [10, 10]}))
    write_trained(reference, [["paper/fig", "accuracy", "", "x86-64-v2", 2, 1, 0.01]])
    pd.DataFrame({"accuracy": [0.53, np.inf], "n": [10, 10]}).to_csv(produced / "paper" / "fig.csv", index=False)
    assert len(drift.check(produced, reference)) == 1
    assert drift.main(["measure", str(reference), f"other CPU={produced}"]) == 0
    spread = drift.read_spread(reference)
    assert sorted(spread.instruction_set) == ["other CPU", "x86-64-v2"]
    assert spread.set_index("instruction_set").loc["other CPU", "max_abs_diff"] == pytest.approx(0.03)
    assert drift.check(produced, reference) == []


def test_a_trained_column_may_move_twice_its_measured_spread_and_no_further(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"accuracy": [0.50, 0.60], "n": [10, 10]}))
    write_trained(reference, [["paper/fig", "accuracy", "", "x86-64-v2", 2, 1, 0.01]])
    pd.DataFrame({"accuracy": [0.519, 0.60], "n": [10, 10]}).to_csv(produced / "paper" / "fig.csv", index=False)
    assert drift.check(produced, reference) == []
    pd.DataFrame({"accuracy": [0.521, 0.60], "n": [10, 10]}).to_csv(produced / "paper" / "fig.csv", index=False)
    problems = drift.check(produced, reference)
    assert len(problems) == 1 and problems[0].startswith("[trained] paper/fig: column 'accuracy'")
    assert "atol=0.02 (measured across instruction sets)" in problems[0]


def test_a_trained_column_that_never_moved_stays_exact_and_labels_never_move(tmp_path):
    frame = pd.DataFrame({"accuracy": [0.5], "n": [10], "config": ["stated"]})
    produced, reference = write_pair(tmp_path, frame)
    write_trained(reference, [["paper/fig", "accuracy", "", "native", 1, 1, 0.1]])
    pd.DataFrame({"accuracy": [0.5], "n": [11], "config": ["adam_e1"]}).to_csv(
        produced / "paper" / "fig.csv", index=False
    )
    problems = drift.check(produced, reference)
    assert [p.split(":")[1] for p in problems] == [
        " column 'n' drifted in 1 rows beyond rtol=1e-09, atol=1e-12 (row 0",
        " column 'config' changed (row 0",
    ]
    assert all(p.startswith("[trained] ") for p in problems)


def test_a_keyed_trained_table_is_tolerated_row_by_row(tmp_path):
    frame = pd.DataFrame({"id": ["a", "b"], "reproduced": [1.0, 1.0], "status": ["pass", "pass"]})
    produced, reference = write_pair(tmp_path, frame)
    write_trained(reference, [["paper/fig", "reproduced", "a", "x86-64-v2", 1, 1, 0.05]], key="[id]")
    moved = pd.DataFrame({"id": ["a", "b"], "reproduced": [1.09, 1.0], "status": ["pass", "pass"]})
    moved.to_csv(produced / "paper" / "fig.csv", index=False)
    assert drift.check(produced, reference) == []
    moved.assign(reproduced=[1.0, 1.01]).to_csv(produced / "paper" / "fig.csv", index=False)
    assert "row 1 b" in " ".join(drift.check(produced, reference))
    moved.assign(status=["pass", "fail"]).to_csv(produced / "paper" / "fig.csv", index=False)
    assert "column 'status' changed" in " ".join(drift.check(produced, reference))


def test_an_exact_table_ignores_a_spread_measured_for_it(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"x": [1.0]}))
    write_trained(
        reference, [["paper/other", "x", "", "native", 1, 1, 1.0], ["paper/fig", "x", "", "native", 1, 1, 1.0]]
    )
    (reference / "tolerances.yaml").write_text("trained:\n  tables:\n    paper/other: {}\n")
    pd.DataFrame({"x": [1.5]}).to_csv(produced / "paper" / "fig.csv", index=False)
    assert drift.check(produced, reference)[0].startswith("[exact] paper/fig: column 'x' drifted")


def test_measure_records_what_moved_per_column_or_per_key(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"id": ["a", "b"], "v": [1.0, 2.0], "s": ["x", "y"]}))
    (reference / "tolerances.yaml").write_text("trained:\n  tables:\n    paper/fig: {key: [id]}\n")
    pd.DataFrame({"id": ["a", "b"], "v": [1.0, 2.5], "s": ["x", "z"]}).to_csv(
        produced / "paper" / "fig.csv", index=False
    )
    spread = drift.measure(reference, {"native": produced})
    assert spread[["column", "key", "rows", "rows_differing"]].values.tolist() == [["v", "b", 1, 1], ["s", "b", 1, 1]]
    assert spread.max_abs_diff.iloc[0] == 0.5 and np.isnan(spread.max_abs_diff.iloc[1])
    assert drift.allowed_deviations(spread, 2) == {("paper/fig", "v", "b"): 1.0}


def test_allowed_deviations_round_up_to_two_digits_and_never_tolerate_nan_or_inf():
    spread = pd.DataFrame(
        [
            ["t", "a", "", "v2", 1, 1, 0.01234],
            ["t", "a", "", "v4", 1, 1, 0.0051],
            ["t", "b", "", "v2", 1, 1, np.inf],
            ["t", "c", "", "v2", 1, 1, np.nan],
        ],
        columns=drift.SPREAD_COLUMNS,
    )
    assert drift.allowed_deviations(spread, 2) == {("t", "a", ""): pytest.approx(0.025)}


def test_a_partial_tolerance_file_keeps_the_other_defaults(tmp_path):
    (tmp_path / "tolerances.yaml").write_text("default: {rtol: 1.0e-6}\ntables:\n")
    tolerances = drift.load_tolerances(tmp_path)
    assert tolerances["default"] == {"rtol": 1e-6, "atol": drift.DEFAULT_TOLERANCES["default"]["atol"]}
    assert tolerances["tables"] == {} and tolerances["png_rms"] == drift.DEFAULT_TOLERANCES["png_rms"]
    assert tolerances["trained"] == {}


def test_changed_labels_missing_outputs_and_images_fail(tmp_path):
    produced, reference = write_pair(tmp_path, pd.DataFrame({"label": ["a"]}))
    pd.DataFrame({"label": ["b"]}).to_csv(reference / "paper" / "fig.csv", index=False)
    (reference / "paper" / "gone.csv").write_text("x\n1\n")
    for side, y in (("reference", [0, 1]), ("produced", [1, 0])):
        figure, axes = new_figure(width=2, height=2)
        axes[0][0].plot([0, 1], y)
        save_png(figure, tmp_path / side / "paper" / "fig.png")
    problems = " | ".join(drift.check(produced, reference))
    assert "column 'label' changed" in problems
    assert "gone" in problems and "not regenerated" in problems
    assert "image differs" in problems


def test_png_bytes_are_deterministic(tmp_path):
    paths = []
    for i in range(2):
        figure, axes = new_figure(width=2, height=2)
        axes[0][0].plot(np.arange(5), np.arange(5) ** 2)
        paths.append(save_png(figure, tmp_path / f"{i}.png"))
    assert paths[0].read_bytes() == paths[1].read_bytes()


@pytest.fixture(scope="session")
def quick_run():
    """Regenerate the whole quick profile from scratch (this is what CI gates on)."""
    # Without the job environment: the workflow must set it itself (checked through the sidecars).
    env = {key: value for key, value in os.environ.items() if key not in JOB_ENVIRONMENT}
    shutil.rmtree(REPO / "results" / "quick", ignore_errors=True)
    result = subprocess.run(
        [
            *SNAKEMAKE,
            "--cores",
            str(os.cpu_count() or 1),
            "--forceall",
            "--nolock",  # the other tests' dry runs in this checkout lock it for a moment; none writes here
            "--quiet",
            "rules",
            "--config",
            "profile=quick",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    return PRODUCED


@pytest.mark.workflow
def test_quick_profile_matches_the_committed_references(quick_run):
    problems = drift.check(quick_run, REFERENCES)
    if problems:  # the readable diff, for a person (and kept by CI)
        index = figure_diff.write_report(figure_diff.figure_changes(quick_run, REFERENCES), quick_run, REFERENCES, DIFF)
        problems.append(f"changed figures, side by side: {index}")
    assert problems == [], "figures drifted (update with `make references` if intended):\n" + "\n".join(problems)


@pytest.mark.workflow
def test_quick_profile_scorecard_statuses_are_earned(quick_run):
    """Every claim is judged, and each deviation's evidence passes in the same run."""
    scorecard = read_scorecard(quick_run / "scorecard.csv")
    assert len(scorecard[scorecard.paper == "permute_and_flip"]) >= 30
    assert len(scorecard[scorecard.paper == "truncated_laplace"]) >= 25
    assert len(scorecard[scorecard.paper == "darrm"]) >= 100
    assert len(scorecard[scorecard.paper == "privgene"]) >= 130
    assert set(scorecard.status) <= set(STATUSES)
    for _paper, claims in scorecard.groupby("paper"):
        status = claims.set_index("id").status
        for _, claim in claims[claims.status == "deviation"].iterrows():
            assert (status[claim.evidence.split(";")] == "pass").all(), claim.id


@pytest.mark.workflow
def test_quick_profile_writes_provenance_sidecars(quick_run):
    import json

    for csv in quick_run.glob("*/*.csv"):
        if csv.stem == "scorecard":
            continue
        if csv.name.endswith(".ledger.csv"):  # a privacy ledger: its digest is in its figure's sidecar
            digest = json.loads(csv.with_name(csv.name.replace(".ledger.csv", ".json")).read_text())["ledger"]
            assert digest["points"] == len(pd.read_csv(csv)) and digest["worst_ledger_error"] <= 1e-9, csv.name
            continue
        sidecar = json.loads(csv.with_suffix(".json").read_text())
        assert sidecar["profile"] == "quick" and len(sidecar["config_hash"]) == 64 and "numpy" in sidecar["packages"]
        assert sidecar["job_environment"] == JOB_ENVIRONMENT, f"{csv.name} ran without the pinned job environment"
        script = REPO / sidecar["script"]
        assert sidecar["rule"] and script.is_file() and script.parent.parent == REPO / "workflow" / "scripts", csv.name
        assert sidecar["calls"] and all(call.startswith("dpreplication.") for call in sidecar["calls"]), csv.name


def planned_after_editing(source: Path) -> dict[str, str]:
    """``{rule: status}`` of the jobs with outputs that a dry run of the finished quick tree plans once ``source``
    is edited (a comment appended; the file and its modification time restored afterwards).

    A job whose own inputs changed has status ``updated input files``; one that only reads what
    those jobs rewrite has status ``ok`` (Snakemake's ``--summary``). A touch alone plans nothing:
    Snakemake compares a newer input's checksum with the one it recorded.
    """
    text, stat = source.read_text(), source.stat()
    source.write_text(text + "\n# an edit, planned by tests/test_drift.py\n")  # newer than every output
    try:
        summary = subprocess.run(
            [*SNAKEMAKE, "--summary", "--nolock", "--cores", "1", "--config", "profile=quick"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        source.write_text(text)
        os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    rows = [line.split("\t") for line in summary.splitlines()[1:] if line.count("\t") == 5]
    return {rule: status for _, _, rule, _, status, plan in rows if plan == "update pending"}


def drawing_modules() -> dict[str, str]:
    """``{drawing rule: its plotting module}``, from the workflow."""
    from dpreplication.pipeline.snakefile import load_workflow

    workflow = load_workflow(REPO / "Snakefile", config={"profile": "quick"})
    return {rule.name: rule.params["drawing"].split(".")[0] for rule in workflow.rules if rule.name.startswith("draw_")}


@pytest.mark.workflow
def test_a_plotting_edit_reruns_only_the_drawings_that_use_it(quick_run):
    planned = planned_after_editing(REPO / "src" / "dpreplication" / "plotting" / "curves.py")
    drawn_with_curves = {rule for rule, module in drawing_modules().items() if module == "curves"}
    assert len(drawn_with_curves) >= 6
    assert {rule for rule, status in planned.items() if status == "updated input files"} == drawn_with_curves
    assert set(planned) - drawn_with_curves == {"report_html"}, "a plotting edit planned a computation"


@pytest.mark.workflow
def test_an_optimiser_edit_reruns_the_jobs_whose_scripts_import_it_and_what_reads_them(quick_run):
    planned = planned_after_editing(REPO / "src" / "dpreplication" / "optimisation" / "noise_lp.py")
    edited = {rule for rule, status in planned.items() if status == "updated input files"}
    assert edited == {"tl_bound_gap", "tl_bound_kinks", "tl_lp_optimum"}
    assert set(planned) - edited == {
        "draw_truncated_laplace_bound_gap",
        "draw_truncated_laplace_lp_optimum",
        "paper_scorecard",
        "scorecard",
        "report_html",
    }
