"""The environment is pinned exactly: lock == environment.yml == what is installed, every pin hashed."""

import hashlib
import importlib.util
from pathlib import Path

import pytest

from dpreplication.pipeline.environment import (
    TORCH_WHEELS,
    installed_mismatches,
    read_environment_pins,
    read_lock,
    read_lock_hashes,
)

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements.lock"


def test_environment_yml_mirrors_the_lock():
    lock, conda = read_lock(LOCK), read_environment_pins(REPO / "environment.yml")
    assert conda == lock, {
        k: (lock.get(k), conda.get(k)) for k in lock.keys() | conda.keys() if lock.get(k) != conda.get(k)
    }


def test_installed_versions_match_the_lock():
    assert installed_mismatches(read_lock(LOCK)) == []


def test_the_libraries_and_the_package_are_installed_with_their_bytecode():
    """`make` installs with bytecode (uv's ``--compile-bytecode``, ``compileall src``): where
    ``PYTHONDONTWRITEBYTECODE`` is set, as on the CI host, every job, test process and Snakemake
    start otherwise compiled pandas, SciPy and Snakemake from source, about 2 CPU-s each (`.ci/run`:
    21 min 44 s against 14 min 44 s)."""
    modules = (
        "pandas.core.frame",
        "scipy.stats._continuous_distns",
        "snakemake.workflow",
        "dpreplication.pipeline.jobs",
    )
    cached = {name: Path(importlib.util.cache_from_source(importlib.util.find_spec(name).origin)) for name in modules}
    without = [name for name, path in cached.items() if not path.is_file()]
    assert not without, f"installed without bytecode: {without} (reinstall with `make`)"


def test_every_pin_carries_its_hashes():
    """pip installs in hash-checking mode only when every requirement is hashed; one bare pin and pip refuses
    the whole file, one missing package and the install is not the lock's."""
    pins, hashes = read_lock(LOCK), read_lock_hashes(LOCK)
    assert len(pins) > 100 and pins.keys() == hashes.keys()
    assert [name for name, listed in hashes.items() if not listed] == []
    assert "--require-hashes -r requirements.lock" in (REPO / "Makefile").read_text()


def test_torch_is_the_pinned_cpu_build_from_pytorchs_cpu_index():
    """make installs torch's +cpu pin from PyTorch's CPU page, hash-checked, before the lock, and conda's
    pip is pointed at the same page: neither resolves PyPI's CUDA build. The lock names no URL: pip asks
    every find-links page or extra index for every package (where one is unreachable, each lookup is
    retried: 15 minutes measured)."""
    lock_text, environment_text = LOCK.read_text(), (REPO / "environment.yml").read_text()
    assert read_lock(LOCK)["torch"] == "2.13.0+cpu"
    assert read_environment_pins(REPO / "environment.yml")["torch"] == "2.13.0+cpu"
    assert f"      - --find-links {TORCH_WHEELS}" in environment_text.splitlines()
    assert not any(line.startswith("-") for line in lock_text.splitlines())
    assert not any(name.startswith("nvidia-") for name in read_lock(LOCK))
    makefile = (REPO / "Makefile").read_text()
    assert f"TORCH_WHEELS ?= {TORCH_WHEELS}" in makefile
    assert "--require-hashes --no-deps --find-links $(TORCH_WHEELS) -r $(VENV)/torch.txt" in makefile


def test_the_locks_torch_hash_is_the_cpu_wheels():
    """Where the CPU wheel lies on this machine (pip's find-links), its SHA-256 is one the lock lists."""
    wheels = sorted(Path("/opt/wheels").glob("torch-2.13.0+cpu-*.whl"))
    if not wheels:
        pytest.skip("no torch CPU wheel in /opt/wheels on this machine")
    digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
    assert digest in read_lock_hashes(LOCK)["torch"]
