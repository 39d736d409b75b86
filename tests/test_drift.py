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

from dpreplication import drift
from dpreplication.plotting import new_figure, save_png
from dpreplication.scorecard import STATUSES, read_scorecard
from dpreplication.workflow_config import JOB_ENVIRONMENT

REPO = Path(__file__).resolve().parents[1]
REFERENCES = REPO / "tests" / "references" / "quick"
PRODUCED = REPO / "results" / "quick" / "figures"
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


def test_a_partial_tolerance_file_keeps_the_other_defaults(tmp_path):
    (tmp_path / "tolerances.yaml").write_text("default: {rtol: 1.0e-6}\ntables:\n")
    tolerances = drift.load_tolerances(tmp_path)
    assert tolerances["default"] == {"rtol": 1e-6, "atol": drift.DEFAULT_TOLERANCES["default"]["atol"]}
    assert tolerances["tables"] == {} and tolerances["png_rms"] == drift.DEFAULT_TOLERANCES["png_rms"]


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
        sidecar = json.loads(csv.with_suffix(".json").read_text())
        assert sidecar["profile"] == "quick" and len(sidecar["config_hash"]) == 64 and "numpy" in sidecar["packages"]
        assert sidecar["job_environment"] == JOB_ENVIRONMENT, f"{csv.name} ran without the pinned job environment"
        script = REPO / sidecar["script"]
        assert sidecar["rule"] and script.is_file() and script.parent.parent == REPO / "workflow" / "scripts", csv.name
        assert sidecar["calls"] and all(call.startswith("dpreplication.") for call in sidecar["calls"]), csv.name
