"""The environment is pinned exactly: lock == environment.yml == what is installed."""

from pathlib import Path

from dpreplication.pipeline.environment import TORCH_INDEX, installed_mismatches, read_environment_pins, read_lock

REPO = Path(__file__).resolve().parents[1]


def test_environment_yml_mirrors_the_lock():
    lock, conda = read_lock(REPO / "requirements.lock"), read_environment_pins(REPO / "environment.yml")
    assert conda == {**lock, "torch": f"{lock['torch']}+cpu"}, {
        k: (lock.get(k), conda.get(k)) for k in lock.keys() | conda.keys() if lock.get(k) != conda.get(k)
    }


def test_installed_versions_match_the_lock():
    assert installed_mismatches(read_lock(REPO / "requirements.lock")) == []


def test_torch_is_the_pinned_cpu_build_from_pytorchs_cpu_index():
    """make installs torch==<pin>+cpu from PyTorch's CPU index before the lock, and conda's pip is
    pointed at it: neither resolves PyPI's CUDA build."""
    assert read_lock(REPO / "requirements.lock")["torch"] == "2.13.0"
    assert read_environment_pins(REPO / "environment.yml")["torch"] == "2.13.0+cpu"
    assert f"--extra-index-url {TORCH_INDEX}" in (REPO / "environment.yml").read_text()
    makefile = (REPO / "Makefile").read_text()
    assert f"TORCH_INDEX ?= {TORCH_INDEX}" in makefile
    assert "--index-url $(TORCH_INDEX) torch==$(TORCH)+cpu" in makefile
