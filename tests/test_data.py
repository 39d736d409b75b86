"""Data fetching: mirror copies are verified; missing or corrupt files fail loudly and clearly."""

import gzip
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dpreplication.data import DATASETS, DataIntegrityError, fetch, load_dpbench_histogram, resolve_mirror, verify
from dpreplication.data.catalog import DataFile, Dataset
from dpreplication.data.fetch import MIRROR_ENV, content_sha256
from dpreplication.pipeline.config import profile_config

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
    from dpreplication.replications.privgene import datasets as privgene_datasets

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
        "from dpreplication.pipeline.jobs import start\n"
        f"job = SimpleNamespace(log=[{str(tmp_path / 'job.log')!r}], rule='toy', params={{}})\n"
        "start(job)\n"
        "raise RuntimeError('data file x is corrupt: expected SHA256 abc')\n"
    )
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode != 0 and "RuntimeError" in result.stderr
    log = (tmp_path / "job.log").read_text()
    assert "the job failed" in log and "data file x is corrupt: expected SHA256 abc" in log


# --------------------------------------------------------------------------- verified in any folder


def test_a_corrupt_copy_in_a_folder_of_another_name_is_refused(mirror, tmp_path):
    """Before, only a file in a folder named after its dataset was verified: a DPBench copy with
    one flipped byte elsewhere read silently (a count of 7.2e16). Found by its name, it is checked."""
    local = tmp_path / "copies" / HEPTH.name
    local.parent.mkdir()
    shutil.copyfile(mirror / "dpbench_1d" / HEPTH.name, local)
    assert load_dpbench_histogram(local).sum() == 347414  # an intact copy reads fine
    with open(local, "r+b") as handle:
        handle.seek(-1, os.SEEK_END)
        handle.write(b"\x01")
    with pytest.raises(DataIntegrityError) as caught:
        load_dpbench_histogram(local)
    message = str(caught.value)
    assert message.startswith(f"data file {local} is corrupt: content SHA256 ") and HEPTH.sha256 in message
    assert (
        f"replace it by an intact copy (the workflow fetches one into <data directory>/dpbench_1d/{HEPTH.name})"
        in message
    )


def idx_labels(labels) -> bytes:
    return (0x801).to_bytes(4, "big") + len(labels).to_bytes(4, "big") + bytes(labels)


@pytest.fixture
def twin_catalogue(monkeypatch):
    """Two datasets with a file of the same name (as MNIST and Fashion-MNIST have): {key: content}."""
    contents = {"twin_a": idx_labels([5, 8, 5]), "twin_b": idx_labels([1, 2])}
    for key, content in contents.items():
        entry = DataFile("labels-idx1-ubyte", "file:///nowhere", hashlib.sha256(content).hexdigest())
        monkeypatch.setitem(DATASETS, key, Dataset(key, (entry,), "citation", "licence"))
    return contents


def test_a_file_name_two_datasets_share_is_checked_against_both_outside_their_folders(twin_catalogue, tmp_path):
    """Outside ``<dataset>/``, either dataset's content reads; anything else is refused naming both
    checksums. In a dataset's folder, or asked for a dataset, only that dataset's content reads."""
    from dpreplication.data.fetch import verified
    from dpreplication.data.idx import read_idx_labels

    expected = [DATASETS[key].file("labels-idx1-ubyte").sha256 for key in twin_catalogue]
    elsewhere = tmp_path / "elsewhere" / "labels-idx1-ubyte"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(twin_catalogue["twin_b"])
    assert read_idx_labels(elsewhere).tolist() == [1, 2]
    corrupt = tmp_path / "copy" / "labels-idx1-ubyte"
    corrupt.parent.mkdir()
    corrupt.write_bytes(idx_labels([1, 3]))  # a label changed, the header still valid
    with pytest.raises(DataIntegrityError) as caught:
        read_idx_labels(corrupt)
    assert f"data file {corrupt} is corrupt" in str(caught.value)
    assert f"expected {expected[0]} (twin_a) or {expected[1]} (twin_b)" in str(caught.value)
    with pytest.raises(DataIntegrityError, match=f"expected {expected[0]}; replace it"):
        verified(elsewhere, "twin_a")
    in_layout = tmp_path / "raw" / "twin_a" / "labels-idx1-ubyte"
    in_layout.parent.mkdir(parents=True)
    in_layout.write_bytes(twin_catalogue["twin_b"])
    with pytest.raises(DataIntegrityError, match=f"expected {expected[0]}; delete {in_layout} and rerun"):
        read_idx_labels(in_layout)


# --------------------------------------------------------------------------- scratch of a stopped fetch


SLOW_FETCH = """
import shutil, sys, time
from pathlib import Path

from dpreplication.data import fetch
from dpreplication.data.catalog import DATASETS, DataFile, Dataset

mirror, destination, sha256 = sys.argv[1:]
DATASETS["toy"] = Dataset("toy", (DataFile("counts.npy", "file:///nowhere", sha256),), "citation", "licence")


def slow_copy(source, target):  # a slow mirror: the first bytes arrive, then nothing for a minute
    Path(target).write_bytes(Path(source).read_bytes()[:8])
    print("copying", flush=True)
    time.sleep(60)


shutil.copyfile = slow_copy
fetch("toy", "counts.npy", destination, mirror)
"""


@pytest.fixture
def toy_mirror(tmp_path, monkeypatch):
    """A mirror holding ``toy/counts.npy``, a small file catalogued as dataset "toy"."""
    source = tmp_path / "mirror" / "toy" / "counts.npy"
    source.parent.mkdir(parents=True)
    np.save(source, np.arange(4096))
    entry = DataFile("counts.npy", "file:///nowhere", hashlib.sha256(source.read_bytes()).hexdigest())
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", (entry,), "citation", "licence"))
    return tmp_path / "mirror"


def default_signal_actions() -> None:
    """Give SIGINT and SIGTERM their default actions (in a child, before it runs Python)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_fetch_stopped_by_a_signal_leaves_no_scratch_folder(signum, toy_mirror, tmp_path):
    """Before, SIGTERM (Snakemake stopping a job) ended the process without removing the scratch
    folder in the data directory; now the fetch unwinds, removes it and ends by the signal."""
    script = tmp_path / "slow_fetch.py"
    script.write_text(SLOW_FETCH)
    folder = tmp_path / "raw" / "toy"
    sha256 = DATASETS["toy"].file("counts.npy").sha256
    command = [sys.executable, str(script), str(toy_mirror), str(folder / "counts.npy"), sha256]
    # The child starts with the signals' default actions, as from a shell: a pytest worker may
    # ignore SIGINT, which a child inherits (the fetch then slept on and the test timed out).
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, preexec_fn=default_signal_actions) as process:
        assert process.stdout.readline() == "copying\n"
        assert [p.name for p in folder.iterdir() if p.is_dir()], "the fetch works in a scratch folder"
        process.send_signal(signum)
        assert process.wait(timeout=30) == -signum
    assert list(folder.iterdir()) == []


def test_the_next_fetch_removes_the_scratch_of_a_killed_fetch(toy_mirror, tmp_path):
    """SIGKILL runs nothing: the next fetch into the folder removes scratch folders whose process is
    gone or that have not changed for an hour, and keeps those of fetches still running."""
    from dpreplication.data.fetch import STALE_SCRATCH_SECONDS, scratch_prefix

    folder = tmp_path / "raw" / "toy"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    alive = os.getpid()
    scratch = {
        "dead": folder / f"{scratch_prefix(int(dead.stdout))}a1b2c3",
        "running": folder / f"{scratch_prefix(alive)}d4e5f6",
        "idle": folder / f"{scratch_prefix(alive)}g7h8i9",
        "other host": folder / f".fetch-{alive}-elsewhere-j0k1l2",
        "not scratch": folder / "notes",
    }
    for path in scratch.values():
        path.mkdir(parents=True)
        (path / "fetched").write_bytes(b"partial")
    an_hour_ago = time.time() - STALE_SCRATCH_SECONDS - 60
    for path in (scratch["idle"] / "fetched", scratch["idle"]):
        os.utime(path, (an_hour_ago, an_hour_ago))
    fetch("toy", "counts.npy", folder / "counts.npy", toy_mirror)
    kept = {scratch[key] for key in ("running", "other host", "not scratch")}
    assert set(folder.iterdir()) == kept | {folder / "counts.npy"}


@pytest.fixture
def flaky_server(tmp_path):
    """A local HTTP server whose first answer to each path is 503, then the file: ``(base URL, requests)``."""
    import http.server
    import threading

    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *arguments, **keywords):
            super().__init__(*arguments, directory=str(tmp_path / "served"), **keywords)

        def do_GET(self):  # noqa: N802 (the http.server name)
            requests.append(self.path)
            if requests.count(self.path) == 1:
                self.send_error(503, "busy, try again")
            else:
                super().do_GET()

        def log_message(self, *arguments):
            pass

    (tmp_path / "served").mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", requests
    server.shutdown()
    thread.join()


def test_a_download_retries_shows_progress_and_is_verified(flaky_server, tmp_path, monkeypatch, capsys):
    base, requests = flaky_server
    content = b"x" * 300_000
    with gzip.open(tmp_path / "served" / "labels.gz", "wb") as packed:
        packed.write(content)
    entry = DataFile("labels", f"{base}/labels.gz", hashlib.sha256(content).hexdigest())
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", (entry,), "citation", "licence"))
    assert fetch("toy", "labels", tmp_path / "raw" / "labels").read_bytes() == content
    assert requests == ["/labels.gz", "/labels.gz"]  # a 503, then the file
    assert "100%" in capsys.readouterr().err  # pooch's progress bar
    wrong = DataFile("labels", f"{base}/labels.gz", "0" * 64)
    monkeypatch.setitem(DATASETS, "toy", Dataset("toy", (wrong,), "citation", "licence"))
    with pytest.raises(DataIntegrityError, match="0" * 64):
        fetch("toy", "labels", tmp_path / "raw" / "other")
    assert not (tmp_path / "raw" / "other").exists()
