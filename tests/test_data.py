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
