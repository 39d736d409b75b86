"""Provenance sidecars: the commit, whether the source tree was dirty, and what the outputs were computed from."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from dpreplication.pipeline.jobs import record_checksums, verify_inputs
from dpreplication.pipeline.provenance import (
    UnreadableRecord,
    file_sha256,
    git_state,
    package_calls,
    read_checksum,
    source_tree_hash,
    write_sidecar,
)


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


# --------------------------------------------------------------------------- damaged records (issue #51)


@pytest.mark.parametrize(
    "written, found",
    [
        ("", "is empty"),
        ("3f2a9c", "is not a sha256sum line (it holds '3f2a9c')"),
        ("3f2a9c  job.csv\n", "is not a sha256sum line"),
    ],
)
def test_a_damaged_checksum_record_is_named_with_its_format(tmp_path, written, found):
    """An empty ``.sha256`` used to stop every job reading its file with a bare ``IndexError: list
    index out of range``; a truncated one with a mismatch against a digest of six characters."""
    table = tmp_path / "work" / "job.csv"
    table.parent.mkdir()
    table.write_text("x\n1\n")
    record_checksums([table])
    assert read_checksum(tmp_path / "work" / "job.csv.sha256") == file_sha256(table)
    (tmp_path / "work" / "job.csv.sha256").write_text(written)
    message = (
        f"checksum record {table}.sha256 {found}" + ("" if found.startswith("is not") else ": expected one line "
        "'<64 hex digits>  <file name>' (sha256sum format) per file, as the job that writes job.csv records it")
    )  # fmt: skip
    with pytest.raises(UnreadableRecord, match=re.escape(message)):
        verify_inputs([table])


@pytest.mark.parametrize(
    "damage, found",
    [
        (lambda text: "", "is empty"),
        (lambda text: text[: len(text) // 2], "is not valid JSON, perhaps truncated (Unterminated string"),
        (lambda text: "[1, 2]", "holds a list, not a JSON object"),
        (
            lambda text: json.dumps({**json.loads(text), "sha256": {"fig.csv": "abc"}}),
            "the sha256 of fig.csv is 'abc'",
        ),
    ],
)
def test_a_damaged_sidecar_is_named_by_every_reader(tmp_path, damage, found):
    """An empty or truncated sidecar used to stop the job reading its table, the report and the
    figure map with a bare ``JSONDecodeError: Expecting value: line 1 column 1 (char 0)``."""
    from dpreplication.pipeline.figure_map import ledger_digests
    from dpreplication.pipeline.report import ledger_html, parameters_html

    table = tmp_path / "fig.csv"
    table.write_text("x\n1\n")
    (tmp_path / "fig.ledger.csv").write_text("x\n1\n")
    sidecar = write_sidecar(tmp_path / "fig.json", settings={}, seed=None, profile="quick", outputs=[table])
    sidecar.write_text(damage(sidecar.read_text()))
    readers = [lambda: verify_inputs([table])]
    if "sha256" not in found:
        readers += [lambda: parameters_html(sidecar), lambda: ledger_html(sidecar)]
        readers += [lambda: ledger_digests(tmp_path, [Path("fig.ledger.csv")])]
    for read in readers:
        with pytest.raises(
            UnreadableRecord, match=re.escape(f"provenance sidecar {sidecar}") + ".*" + re.escape(found)
        ):
            read()
