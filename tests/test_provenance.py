"""Provenance sidecars: the commit, whether the source tree was dirty, and what the outputs were computed from."""

import json
import subprocess

from dpreplication.pipeline.provenance import git_state, package_calls, source_tree_hash, write_sidecar


def make_checkout(root):
    (root / "src" / "dpreplication").mkdir(parents=True)
    (root / "src" / "dpreplication" / "m.py").write_text("x = 1\n")
    (root / "config").mkdir()
    (root / "config" / "config.yaml").write_text("seed: 1\n")
    (root / "notes.txt").write_text("not source\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *command], cwd=root, check=True)


def test_clean_and_dirty_source_trees(tmp_path):
    make_checkout(tmp_path)
    state = git_state(tmp_path)
    assert len(state["commit"]) == 40 and state["dirty"] is False
    (tmp_path / "notes.txt").write_text("edited, but not source\n")
    assert git_state(tmp_path)["dirty"] is False
    (tmp_path / "config" / "config.yaml").write_text("seed: 2\n")
    assert git_state(tmp_path)["dirty"] is True


def test_source_tree_hash_follows_code_and_config_only(tmp_path):
    make_checkout(tmp_path)
    before = source_tree_hash(tmp_path)
    (tmp_path / "notes.txt").write_text("edited\n")
    assert source_tree_hash(tmp_path) == before
    (tmp_path / "src" / "dpreplication" / "m.py").write_text("x = 2\n")
    assert source_tree_hash(tmp_path) != before


def test_sidecar_records_commit_dirty_flag_and_hashes(tmp_path, monkeypatch):
    make_checkout(tmp_path)
    monkeypatch.chdir(tmp_path)
    sidecar = write_sidecar(
        tmp_path / "out.json", settings={"epsilon": 1.0}, seed=3, profile="quick", outputs=[tmp_path / "out.csv"]
    )
    record = json.loads(sidecar.read_text())
    assert record["dirty"] is False and len(record["commit"]) == 40
    assert record["source_tree_hash"] == source_tree_hash(tmp_path)
    assert len(record["config_hash"]) == 64 and record["seed"] == 3 and record["outputs"] == ["out.csv"]


def test_sidecar_names_the_rule_script_and_package_functions(tmp_path):
    """A reader goes from an output to the code: the rule, its script and what the script calls."""
    script = tmp_path / "figure.py"
    script.write_text(
        "import pandas as pd\n"
        "from dpreplication.replications.darrm import analytic\n"
        "from dpreplication.pipeline.jobs import publish, start\n"
        "start(snakemake)\n"
        "data = analytic.gamma_shapes(**snakemake.params.settings)\n"
        "pd.concat([data])\n"
        "publish(snakemake, data, drawing={})\n"
    )
    assert package_calls(script) == [
        "dpreplication.pipeline.jobs.start",
        "dpreplication.replications.darrm.analytic.gamma_shapes",
        "dpreplication.pipeline.jobs.publish",
    ]
    sidecar = write_sidecar(
        tmp_path / "out.json", settings={}, seed=None, profile="quick", outputs=[], rule="darrm_f2", script=script
    )
    record = json.loads(sidecar.read_text())
    assert record["rule"] == "darrm_f2" and record["script"] == script.as_posix()
    assert record["calls"] == package_calls(script)
