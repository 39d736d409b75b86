"""The committed figures were computed with the settings the default profile hands their rules now.

The drift check reruns the quick profile, so a changed default that the quick overlay overrides (a
grid, a repetition count, an ε) would go unseen there; here every published sidecar's ``settings``
and ``seed`` are compared with what the workflow would pass the rule that writes it today, and its
one-line ``parameters`` (under each figure in the report) with those settings."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from dpreplication.pipeline.figure_map import ancestors, rule_graph
from dpreplication.pipeline.provenance import parameter_line
from dpreplication.pipeline.snakefile import load_workflow

REPO = Path(__file__).resolve().parents[1]


def as_json(value):
    """``value`` as the sidecar stores it (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value, default=str))


def published_sidecars() -> list[tuple[str, Path, dict]]:
    """(rule, committed sidecar, the params it would get now) of every rule that writes a sidecar
    under ``figures/`` (a rule with such an output has no wildcards: a settings function of the
    wildcards, as PrivGene's rules have, is called with none)."""
    rows = []
    for rule in load_workflow(REPO / "Snakefile").rules:
        sidecars = [
            path
            for name, path in rule.output.items()
            if name.endswith("json") and str(path).startswith("figures/") and "{" not in str(path)
        ]
        params = dict(rule.params.items())
        if sidecars and callable(params.get("settings")):
            params["settings"] = params["settings"](SimpleNamespace())
        rows += [(rule.name, REPO / path, params) for path in sidecars]
    return rows


SIDECARS = published_sidecars()


def test_every_published_figure_is_checked():
    assert len(SIDECARS) >= 60, len(SIDECARS)
    assert all(path.is_file() for _, path, _ in SIDECARS), [str(p) for _, p, _ in SIDECARS if not p.is_file()]


@pytest.mark.parametrize("rule, sidecar, params", SIDECARS, ids=lambda v: v if isinstance(v, str) else "")
def test_a_published_sidecar_records_the_settings_its_rule_gets_now(rule, sidecar, params):
    recorded = json.loads(sidecar.read_text())
    assert recorded["settings"] == as_json(params.get("settings")), (
        f"{sidecar.relative_to(REPO)} was computed with other settings than rule {rule} gets now: "
        "rerun `make replicate` (or revert the configuration change)"
    )
    assert recorded["seed"] == params.get("seed"), f"{sidecar.relative_to(REPO)}: seed {recorded['seed']}"
    line = parameter_line(params.get("settings"), seed=params.get("seed"), profile="default")
    assert recorded["parameters"] == line, f"{sidecar.relative_to(REPO)}: its parameter line is not its rule's settings"


def test_a_changed_default_is_caught():
    """Negative control: one changed number in a rule's settings no longer matches its sidecar."""
    rule, sidecar, params = next(row for row in SIDECARS if row[0] == "tl_density")
    changed = {**params["settings"], "epsilon": 2}
    assert json.loads(sidecar.read_text())["settings"] != as_json(changed)


def test_a_publishing_rule_behind_seeded_jobs_records_their_seed():
    """A figure aggregated from seeded jobs is seeded too: its rule passes the seed on, so that the
    sidecar and the report do not say "seed None" for it."""
    workflow = load_workflow(REPO / "Snakefile")
    seeded = {rule.name for rule in workflow.rules if "seed" in dict(rule.params.items())}
    parents = rule_graph(REPO / "Snakefile")
    publishing = {rule for rule, _, _ in SIDECARS if not rule.startswith("draw_")}
    unseeded = sorted(rule for rule in publishing - seeded if ancestors(rule, parents) & seeded)
    assert not unseeded, f"publishing rules behind seeded jobs without params.seed: {unseeded}"
