"""Running one rule's script outside Snakemake (``python -m dpreplication.pipeline.debug``): the
``snakemake`` object is the workflow's, and the script computes the workflow's numbers."""

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from dpreplication.pipeline.config import profile_config
from dpreplication.pipeline.debug import mock_snakemake

REPO = Path(__file__).resolve().parents[1]


def test_the_object_is_the_rules():
    snakemake, script = mock_snakemake("pf_pmf_bars", "quick")
    assert script == REPO / "workflow" / "scripts" / "permute_and_flip" / "pmf_bars.py"
    assert [Path(path).name for path in snakemake.output] == ["pmf_bars.csv", "pmf_bars.json"]
    assert all(str(path).startswith("results/quick/figures/permute_and_flip/") for path in snakemake.output)
    config = profile_config("quick", REPO)
    assert dict(snakemake.params.settings) == config["permute_and_flip"]["pmf_bars"]
    assert snakemake.params.seed == config["seed"] and snakemake.rule == "pf_pmf_bars"


def test_a_missing_wildcard_is_named():
    with pytest.raises(SystemExit, match=r"needs the wildcards \['pg_dataset', 'repetitions', 'task'\]"):
        mock_snakemake("privgene_comparison_job", "quick")


@pytest.mark.workflow
def test_a_debug_run_writes_the_workflows_numbers():
    """The quick profile's pmf_bars, run by the debugger into a variant tree, is the drift reference."""
    variant = f"debug-{uuid.uuid4().hex[:8]}"
    try:
        subprocess.run(
            [sys.executable, "-m", "dpreplication.pipeline.debug", "pf_pmf_bars", "--variant", variant],
            cwd=REPO,
            check=True,
            capture_output=True,
            timeout=600,
        )
        written = REPO / "results" / variant / "figures" / "permute_and_flip" / "pmf_bars.csv"
        reference = REPO / "tests" / "references" / "quick" / "permute_and_flip" / "pmf_bars.csv"
        assert written.read_bytes() == reference.read_bytes()
    finally:
        shutil.rmtree(REPO / "results" / variant, ignore_errors=True)
        shutil.rmtree(REPO / "logs" / variant, ignore_errors=True)
