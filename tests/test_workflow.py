"""Job glue (dpreplication.pipeline.jobs): an intermediate edited after its job wrote it stops the job
that reads it, naming the file and both checksums."""

import json
import subprocess
import sys

import pytest

from dpreplication.pipeline.jobs import IntermediateChanged, is_intermediate, record_checksums, verify_inputs


def test_only_intermediates_get_a_checksum_record(tmp_path):
    work, figures = tmp_path / "results/quick/work/paper", tmp_path / "results/quick/figures/paper"
    for folder in (work, figures):
        folder.mkdir(parents=True)
    table, votes, sidecar, published = work / "job.csv", work / "votes.npz", work / "job.json", figures / "fig.csv"
    for path in (table, votes, sidecar, published):
        path.write_text("x\n1\n")
    assert record_checksums([table, votes, sidecar, published]) == [work / "job.csv.sha256", work / "votes.npz.sha256"]
    assert not is_intermediate(published) and not is_intermediate(sidecar)


def test_an_edited_intermediate_stops_the_job_that_reads_it(tmp_path):
    table = tmp_path / "work" / "job.csv"
    table.parent.mkdir()
    table.write_text("x\n1\n")
    record_checksums([table])
    verify_inputs([table, tmp_path / "absent.csv"])  # unchanged, and a path that is no file
    table.write_text("x\n2\n")
    with pytest.raises(IntermediateChanged, match=r"intermediate file .*job.csv changed after the job that wrote it"):
        verify_inputs([table])


def test_an_edited_published_table_is_caught_through_its_sidecar(tmp_path):
    from dpreplication.pipeline.provenance import write_sidecar

    table = tmp_path / "fig.csv"
    table.write_text("x\n1\n")
    write_sidecar(tmp_path / "fig.json", settings={}, seed=None, profile="quick", outputs=[table])
    assert json.loads((tmp_path / "fig.json").read_text())["sha256"]["fig.csv"]
    verify_inputs([table])
    table.write_text("x\n1.5\n")
    with pytest.raises(IntermediateChanged, match="fig.json"):
        verify_inputs([table])


@pytest.mark.parametrize("fails", [False, True])
def test_a_job_records_its_intermediates_only_when_it_succeeds(tmp_path, fails):
    table = tmp_path / "work" / "job.csv"
    table.parent.mkdir()
    script = tmp_path / "job.py"
    script.write_text(
        "from pathlib import Path\n"
        "from types import SimpleNamespace\n"
        "from dpreplication.pipeline.jobs import start\n"
        f"job = SimpleNamespace(log=[], rule='toy', params={{}}, input=[], output=[{str(table)!r}])\n"
        "start(job)\n"
        f"Path({str(table)!r}).write_text('x\\n1\\n')\n" + ("raise RuntimeError('no')\n" if fails else "")
    )
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert (result.returncode != 0) == fails
    assert (tmp_path / "work" / "job.csv.sha256").is_file() != fails


def test_a_published_ledger_is_verified_through_its_figure_sidecar(tmp_path):
    """``fig.ledger.csv`` is recorded in ``fig.json`` (the lookup used to look for ``fig.ledger.json``,
    so an edited ledger was scored)."""
    from dpreplication.pipeline.provenance import write_sidecar

    table, ledger = tmp_path / "fig.csv", tmp_path / "fig.ledger.csv"
    table.write_text("x\n1\n")
    ledger.write_text("epsilon,spent\n1,1\n")
    write_sidecar(tmp_path / "fig.json", settings={}, seed=None, profile="quick", outputs=[table, ledger])
    verify_inputs([table, ledger])
    ledger.write_text("epsilon,spent\n1,0.5\n")
    with pytest.raises(IntermediateChanged, match=r"fig.ledger.csv changed .* recorded .* in .*fig.json"):
        verify_inputs([ledger])


def test_a_sidecar_that_does_not_record_its_table_is_refused(tmp_path):
    """Another figure's CSV and JSON put in a figure's place, or its sidecar's sha256 removed: the table
    used to pass unchecked. A file the sidecar never covered (the figure's PNG) is not refused."""
    from dpreplication.pipeline.provenance import UnreadableRecord, write_sidecar

    other, table = tmp_path / "other.csv", tmp_path / "fig.csv"
    other.write_text("x\n2\n")
    write_sidecar(tmp_path / "other.json", settings={}, seed=None, profile="quick", outputs=[other])
    table.write_text(other.read_text())
    (tmp_path / "fig.json").write_text((tmp_path / "other.json").read_text())
    with pytest.raises(UnreadableRecord, match=r"fig.json records \['other.csv'\], none of them fig\.\*"):
        verify_inputs([table])
    write_sidecar(tmp_path / "fig.json", settings={}, seed=None, profile="quick", outputs=[table])
    verify_inputs([table, tmp_path / "fig.png"])
    (tmp_path / "fig.png").write_bytes(b"png")
    verify_inputs([tmp_path / "fig.png"])
    recorded = json.loads((tmp_path / "fig.json").read_text())
    del recorded["sha256"]
    (tmp_path / "fig.json").write_text(json.dumps(recorded))
    with pytest.raises(UnreadableRecord, match="names fig.csv but records no sha256 of it"):
        verify_inputs([table])
