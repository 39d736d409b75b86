"""Job glue (dpreplication.pipeline.jobs): an intermediate edited after its job wrote it stops the job
that reads it, naming the file and both checksums."""

import json
import subprocess
import sys

import pytest

from dpreplication.pipeline.jobs import IntermediateChanged, is_intermediate, record_checksums, verify_inputs


def test_every_output_no_sidecar_records_gets_a_checksum_record(tmp_path):
    """Intermediates, and published files without a sidecar of their own (a PNG, a scorecard); never a sidecar."""
    from dpreplication.pipeline.provenance import write_sidecar

    work, figures = tmp_path / "results/quick/work/paper", tmp_path / "results/quick/figures/paper"
    for folder in (work, figures):
        folder.mkdir(parents=True)
    table, votes, sidecar, published = work / "job.csv", work / "votes.npz", work / "job.json", figures / "fig.csv"
    for path in (table, votes, sidecar, published):
        path.write_text("x\n1\n")
    write_sidecar(figures / "fig.json", settings={}, seed=None, profile="quick", outputs=[published])
    picture = figures / "fig.png"
    picture.write_bytes(b"png")
    outputs = [table, votes, sidecar, published, figures / "fig.json", picture]
    assert record_checksums(outputs) == [work / "job.csv.sha256", work / "votes.npz.sha256", figures / "fig.png.sha256"]
    assert not is_intermediate(published) and not is_intermediate(sidecar)


def published_figure(tmp_path):
    """A published table with its sidecar, and its PNG drawn from it (recorded as its drawing job records it)."""
    from dpreplication.pipeline.provenance import write_sidecar

    figures = tmp_path / "figures" / "paper"
    figures.mkdir(parents=True)
    table, picture = figures / "fig.csv", figures / "fig.png"
    table.write_text("x\n1\n")
    write_sidecar(figures / "fig.json", settings={}, seed=None, profile="default", outputs=[table])
    picture.write_bytes(b"a picture of x = 1")
    record_checksums([picture], sources=[table, figures / "fig.json", tmp_path / "config.yaml"])
    return table, picture


def test_a_png_records_itself_and_the_published_files_it_was_drawn_from(tmp_path):
    """``sha256sum -c fig.png.sha256`` in its folder checks the picture, its table and its sidecar."""
    from dpreplication.pipeline.provenance import file_sha256, read_checksums

    table, picture = published_figure(tmp_path)
    assert read_checksums(picture.with_name("fig.png.sha256")) == {
        "fig.png": file_sha256(picture),
        "fig.csv": file_sha256(table),
        "fig.json": file_sha256(table.with_name("fig.json")),
    }
    verify_inputs([picture, table])
    result = subprocess.run(["sha256sum", "-c", "fig.png.sha256"], cwd=picture.parent, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.count(": OK") == 3


def test_a_swapped_or_edited_png_is_refused_where_it_is_read(tmp_path):
    table, picture = published_figure(tmp_path)
    picture.write_bytes(b"another figure's picture")
    with pytest.raises(
        IntermediateChanged, match=r"fig.png changed after the job that wrote it: .* in .*fig.png.sha256"
    ):
        verify_inputs([picture])


def test_a_png_drawn_from_an_older_table_is_stale(tmp_path):
    """The table rewritten by its rule (sidecar and all) but the PNG not redrawn: the report must not pair them."""
    from dpreplication.pipeline.provenance import write_sidecar

    table, picture = published_figure(tmp_path)
    table.write_text("x\n2\n")
    write_sidecar(table.with_name("fig.json"), settings={}, seed=None, profile="default", outputs=[table])
    verify_inputs([table])  # the table is what its rule wrote
    with pytest.raises(IntermediateChanged, match=r"fig.png is stale: it was made from .*fig.csv"):
        verify_inputs([picture])


@pytest.mark.parametrize("where", ["results/quick/work/paper/job.csv", "figures/paper/fig.png"])
def test_a_deleted_record_is_an_error_for_a_file_a_job_wrote(tmp_path, where):
    """A missing ``.sha256`` used to let the file through unchecked."""
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_text("x\n1\n")
    record_checksums([path])
    verify_inputs([path])
    path.with_name(path.name + ".sha256").unlink()
    with pytest.raises(IntermediateChanged, match=r"has no checksum record: its job records one"):
        verify_inputs([path])
    (tmp_path / "config.yaml").write_text("profile: quick\n")
    verify_inputs([tmp_path / "config.yaml"])  # not a job's output: nothing to check


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
