"""The environment is pinned exactly: lock == environment.yml == what is installed."""

from pathlib import Path

from dpreplication.pipeline.environment import installed_mismatches, read_environment_pins, read_lock

REPO = Path(__file__).resolve().parents[1]


def test_environment_yml_mirrors_the_lock():
    lock, conda = read_lock(REPO / "requirements.lock"), read_environment_pins(REPO / "environment.yml")
    assert conda == lock, {
        k: (lock.get(k), conda.get(k)) for k in lock.keys() | conda.keys() if lock.get(k) != conda.get(k)
    }


def test_installed_versions_match_the_lock():
    assert installed_mismatches(read_lock(REPO / "requirements.lock")) == []


def test_torch_is_the_pinned_cpu_build():
    assert read_lock(REPO / "requirements.lock")["torch"] == "2.13.0"
