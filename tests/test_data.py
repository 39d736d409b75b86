"""Data fetching: mirror copies are verified; missing or corrupt files fail loudly and clearly."""

import gzip
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from dpreplication.data import DATASETS, DataIntegrityError, fetch, load_dpbench_histogram, resolve_mirror, verify
from dpreplication.data.fetch import MIRROR_ENV, content_sha256
from dpreplication.workflow_config import profile_config

HEPTH = DATASETS["dpbench_1d"].file("HEPTH.n4096.npy")


@pytest.fixture
def mirror(tmp_path):
    """A tiny mirror holding a valid HEPTH file (copied from the real mirror, or skipped)."""
    real = os.environ.get(MIRROR_ENV)
    source = Path(real or "") / "dpbench_1d" / HEPTH.name
    if not real or not source.is_file():
        pytest.skip("no data mirror available")
    (tmp_path / "mirror" / "dpbench_1d").mkdir(parents=True)
    shutil.copyfile(source, tmp_path / "mirror" / "dpbench_1d" / HEPTH.name)
    return tmp_path / "mirror"


def test_fetch_from_mirror_verifies_and_loads(mirror, tmp_path):
    out = fetch("dpbench_1d", HEPTH.name, tmp_path / "raw" / HEPTH.name, mirror)
    assert content_sha256(out) == HEPTH.sha256
    x = load_dpbench_histogram(out)
    assert x.shape == (1024,) and x.sum() == 347414 and x.argmax() == 803 and x.max() == 1571


def test_gzip_copy_in_mirror_is_accepted_by_content_hash(mirror, tmp_path):
    plain = mirror / "dpbench_1d" / HEPTH.name
    with open(plain, "rb") as src, gzip.open(str(plain) + ".gz", "wb") as out:
        shutil.copyfileobj(src, out)
    plain.unlink()
    out = fetch("dpbench_1d", HEPTH.name, tmp_path / "raw" / HEPTH.name, mirror)
    assert hashlib.sha256(out.read_bytes()).hexdigest() == HEPTH.sha256


def test_corrupt_file_fails_with_name_and_expected_checksum(mirror, tmp_path):
    corrupt = mirror / "dpbench_1d" / HEPTH.name
    data = bytearray(corrupt.read_bytes())
    data[-1] ^= 0xFF
    corrupt.write_bytes(bytes(data))
    destination = tmp_path / "raw" / HEPTH.name
    with pytest.raises(DataIntegrityError) as error:
        fetch("dpbench_1d", HEPTH.name, destination, mirror)
    assert HEPTH.name in str(error.value) and HEPTH.sha256 in str(error.value)
    assert not destination.exists(), "a corrupt file must never reach the data directory"


def test_missing_file_fails_with_name_and_expected_checksum(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataIntegrityError) as error:
        fetch("dpbench_1d", HEPTH.name, tmp_path / "raw" / HEPTH.name, tmp_path / "empty")
    assert HEPTH.name in str(error.value) and HEPTH.sha256 in str(error.value)
    with pytest.raises(DataIntegrityError, match="missing"):
        verify(tmp_path / "nowhere.npy", HEPTH.sha256)


def test_unknown_file_is_rejected():
    with pytest.raises(KeyError, match="no file"):
        DATASETS["dpbench_1d"].file("NOPE.npy")


def test_environment_variable_overrides_config(monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, "/from/env")
    assert resolve_mirror("/from/config") == Path("/from/env")
    monkeypatch.delenv(MIRROR_ENV)
    assert resolve_mirror("/from/config") == Path("/from/config")
    assert resolve_mirror(None) is None


def test_loader_rejects_wrong_shape(tmp_path):
    np.save(tmp_path / "bad.npy", np.arange(1000))
    with pytest.raises(ValueError, match="multiple of 1024"):
        load_dpbench_histogram(tmp_path / "bad.npy")


# --------------------------------------------------------------------------- integrity at use


def test_a_raw_file_corrupted_after_its_fetch_stops_the_loader(mirror, tmp_path):
    local = fetch("dpbench_1d", HEPTH.name, tmp_path / "raw" / "dpbench_1d" / HEPTH.name, mirror)
    load_dpbench_histogram(local)
    with open(local, "r+b") as handle:  # one flipped byte in the data, header intact
        handle.seek(-8, os.SEEK_END)
        handle.write(b"\x01")
    with pytest.raises(DataIntegrityError, match=f"{local}.*corrupt.*expected {HEPTH.sha256}"):
        load_dpbench_histogram(local)


def test_privgene_datasets_verify_their_raw_files_as_they_read_them(tmp_path):
    from dpreplication.data.fetch import verified
    from dpreplication.replications import privgene_datasets

    real = Path(os.environ.get(MIRROR_ENV, "")) / "lifesci"
    entry = DATASETS["lifesci"].files[0]
    if not (real / entry.name).is_file():
        pytest.skip("no data mirror available")
    local = tmp_path / "raw" / "lifesci" / entry.name
    local.parent.mkdir(parents=True)
    shutil.copyfile(real / entry.name, local)
    assert verified(local) == local
    local.write_bytes(local.read_bytes().replace(b"1", b"2", 1))
    with pytest.raises(DataIntegrityError, match=f"{local}.*corrupt.*expected {entry.sha256}"):
        privgene_datasets.prepare_dataset(
            "Lifesci",
            [local],
            seed=1,
            **profile_config("default", Path(__file__).resolve().parents[1])["privgene"]["data"],
        )


def test_a_corrupt_gzip_in_the_mirror_names_its_source_and_checksum(mirror, tmp_path):
    source = mirror / "dpbench_1d" / f"{HEPTH.name}.gz"
    source.write_bytes(gzip.compress((mirror / "dpbench_1d" / HEPTH.name).read_bytes())[:-40])
    (mirror / "dpbench_1d" / HEPTH.name).unlink()
    with pytest.raises(DataIntegrityError) as caught:
        fetch("dpbench_1d", HEPTH.name, tmp_path / "out" / HEPTH.name, mirror)
    message = str(caught.value)
    assert str(source) in message and "does not decompress" in message and HEPTH.sha256 in message
    assert "fetched" not in message and not (tmp_path / "out" / HEPTH.name).exists()


def test_a_corrupt_mirror_file_is_named_by_its_source_not_a_temporary_path(mirror, tmp_path):
    source = mirror / "dpbench_1d" / HEPTH.name
    content = bytearray(source.read_bytes())
    content[len(content) // 2] ^= 0xFF
    source.write_bytes(bytes(content))
    with pytest.raises(DataIntegrityError) as caught:
        fetch("dpbench_1d", HEPTH.name, tmp_path / "out" / HEPTH.name, mirror)
    message = str(caught.value)
    assert f"dpbench_1d/{HEPTH.name} from {source} is corrupt" in message and HEPTH.sha256 in message
    assert "plain" not in message.replace(str(source), "")


def test_a_deleted_raw_file_is_fetched_again_before_what_reads_it(mirror, tmp_path):
    import subprocess
    import sys

    directory = tmp_path / "raw"
    fetch("dpbench_1d", HEPTH.name, directory / "dpbench_1d" / HEPTH.name, mirror)
    repo = Path(__file__).resolve().parents[1]
    target = "results/quick/work/permute_and_flip/utility/HEPTH.csv"

    def planned():
        result = subprocess.run(
            [
                str(Path(sys.executable).parent / "snakemake"),
                "-n",
                target,
                "--forcerun",
                "pf_utility_dataset",
                "--config",
                "profile=quick",
                f"data={{directory: {directory}}}",
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        stats = result.stdout.split("Job stats:")[1].split("total")[0]
        return {line.split()[0] for line in stats.splitlines()[3:] if line.strip()}

    assert planned() == {"pf_utility_dataset"}
    (directory / "dpbench_1d" / HEPTH.name).unlink()
    assert planned() == {"pf_utility_dataset", "fetch_data_file"}


def test_a_failing_job_writes_its_exception_into_its_log(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "job.py"
    script.write_text(
        "from types import SimpleNamespace\n"
        "from dpreplication.workflow import start\n"
        f"job = SimpleNamespace(log=[{str(tmp_path / 'job.log')!r}], rule='toy', params={{}})\n"
        "start(job)\n"
        "raise RuntimeError('data file x is corrupt: expected SHA256 abc')\n"
    )
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode != 0 and "RuntimeError" in result.stderr
    log = (tmp_path / "job.log").read_text()
    assert "the job failed" in log and "data file x is corrupt: expected SHA256 abc" in log
