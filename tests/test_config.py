"""Configuration: every profile validates; a bad value stops the run naming the key."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--directory", str(REPO), "--snakefile", str(REPO / "Snakefile")]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def merged(profile):
    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    overlay = yaml.safe_load((REPO / "config" / "profiles" / f"{profile}.yaml").read_text()) or {}

    def merge(a, b):
        return {
            **a,
            **{k: merge(a[k], v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v for k, v in b.items()},
        }

    return {**merge(base, overlay), "profile": profile}


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_every_profile_validates(profile):
    validate(merged(profile), str(SCHEMA))


def test_every_key_has_a_description_and_a_default():
    schema = yaml.safe_load(SCHEMA.read_text())

    def walk(node, path):
        for key, sub in node.get("properties", {}).items():
            assert "description" in sub, f"{path}{key}: no description"
            assert "default" in sub, f"{path}{key}: no default"
            walk(sub, f"{path}{key}.")

    walk(schema, "")


def dry_run(*args):
    return subprocess.run([*SNAKEMAKE, "-n", *args], capture_output=True, text=True, cwd=REPO)


def test_bad_value_stops_the_run_naming_the_key():
    result = dry_run("--config", "seed=-3")
    assert result.returncode != 0
    assert "seed" in result.stderr + result.stdout and "minimum" in result.stderr + result.stdout


def test_unknown_profile_is_named():
    result = dry_run("--config", "profile=bogus")
    assert result.returncode != 0 and "config key 'profile'" in result.stderr + result.stdout
