"""Every rule's ``code`` inputs cover the package modules its script imports, directly or through
other modules, so that editing any of them reruns the rule (``rerun-triggers: input``).

The imports are read from the source by :func:`dpreplication.pipeline.code_graph.import_closure` (module
level and inside functions, which the scripts' lazy imports use), and a name imported from a
subpackage is followed through its lazy-export table (``_EXPORTS`` in the subpackage's
``__init__``) to the module that defines it. No computing rule reads the plotting package: only the
drawing rules (``workflow/rules/drawing.smk``) do, so that editing a plot never reruns a computation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dpreplication.pipeline.code_graph import import_closure
from dpreplication.pipeline.snakefile import load_workflow

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "dpreplication"
RULES = REPO / "workflow" / "rules"


def scripted_rules():
    """(rule name, script path, code input paths) of every rule of the workflow that runs a script."""
    workflow = load_workflow(REPO / "Snakefile", config={"profile": "quick"})
    return [
        (rule.name, (RULES / rule.script).resolve(), {(REPO / f).resolve() for f in rule.input.get("code", [])})
        for rule in workflow.rules
        if rule.script
    ]


RULE_TABLE = scripted_rules()


def test_every_scripted_rule_declares_code_inputs():
    assert len(RULE_TABLE) > 50
    assert [name for name, _, code in RULE_TABLE if not code] == ["fetch_data_file"]


SCRIPTED_RULES = [row for row in RULE_TABLE if row[2]]


@pytest.mark.parametrize("name, script, code", SCRIPTED_RULES, ids=[row[0] for row in SCRIPTED_RULES])
def test_code_inputs_cover_the_scripts_imports(name, script, code):
    needed = {path for path in import_closure(script) if path.name != "__init__.py"}
    missing = sorted(str(path.relative_to(PACKAGE)) for path in needed - code)
    assert not missing, f"rule {name}: {script.name} imports modules that are not code inputs: {missing}"


def test_only_drawing_rules_depend_on_the_plotting_package():
    plotting = PACKAGE / "plotting"
    drawing = {name for name, _, code in SCRIPTED_RULES if any(plotting in path.parents for path in code)}
    assert drawing == {name for name, _, _ in SCRIPTED_RULES if name.startswith("draw_")}
    assert len(drawing) == 37
