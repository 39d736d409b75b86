"""Every rule's ``code`` inputs cover the package modules its script imports, directly or through
other modules, so that editing any of them reruns the rule (``rerun-triggers: input``).

The imports are read from the source by :func:`dpreplication.pipeline.code_graph.import_closure` (module
level and inside functions, which the scripts' lazy imports use), and a name imported from a
subpackage is followed through its lazy-export table (``_EXPORTS`` in the subpackage's
``__init__``) to the module that defines it. One
exception, by design (``code_inputs(..., plots=False)`` in ``workflow/rules/common.smk``): a rule
that only computes does not depend on the plotting package, which ``workflow.publish`` imports
lazily for figures, so that editing a plot never reruns hours of jobs.
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
    plotting = PACKAGE / "plotting"
    needed = {path for path in import_closure(script) if path.name != "__init__.py"}
    if not any(plotting in path.parents for path in code):
        needed = {path for path in needed if plotting not in path.parents}
    missing = sorted(str(path.relative_to(PACKAGE)) for path in needed - code)
    assert not missing, f"rule {name}: {script.name} imports modules that are not code inputs: {missing}"
