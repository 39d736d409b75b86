"""A function the workflow hands a config section takes those settings as required keywords: the
schema is the one home of every default (``tests/test_config.py``), so a default in the signature
would be a second one, free to disagree with it unseen.

The calls are read from each scripted rule's script: a call with ``**snakemake.params.settings``
(or a name bound to it) on ``alias.function``, where ``alias`` is an imported package module; the
keys are those of the rule's ``settings`` param as the workflow resolves it."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from types import SimpleNamespace

import pytest

from dpreplication.pipeline.snakefile import load_workflow

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "workflow" / "rules"


def rules_with_settings() -> list[tuple[str, Path, dict]]:
    """(rule, script, settings) of every scripted rule whose ``settings`` param is a mapping or, as
    the papers' rules have (``rule_settings`` in common.smk), a function of the wildcards of a rule
    that has none (rules whose settings depend on wildcards are left out)."""
    rows = []
    for rule in load_workflow(REPO / "Snakefile").rules:
        settings = dict(rule.params.items()).get("settings") if rule.script else None
        if callable(settings) and not rule.wildcard_names:
            settings = settings(SimpleNamespace())
        if isinstance(settings, dict):
            rows.append((rule.name, (RULES / rule.script).resolve(), settings))
    return rows


def settings_calls(script: Path) -> list[str]:
    """``module.function`` of every call in ``script`` that unpacks the rule's settings."""
    tree = ast.parse(script.read_text())
    modules, settings_names = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpreplication"):
            for alias in node.names:
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Assign) and ast.unparse(node.value) == "snakemake.params.settings":
            settings_names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    choices = {  # FIGURES = {"amplitude": tl.figure2_amplitude_ratio, ...}: a call FIGURES[key](**settings)
        target.id: list(node.value.values)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        unpacks = [k for k in node.keywords if k.arg is None]
        if not any(ast.unparse(k.value) in {"snakemake.params.settings", *settings_names} for k in unpacks):
            continue
        callees = [node.func]
        if isinstance(node.func, ast.Subscript) and isinstance(node.func.value, ast.Name):
            callees = choices.get(node.func.value.id, [])
        for callee in callees:
            if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id in modules:
                calls.append(f"{modules[callee.value.id]}.{callee.attr}")
    return calls


CHECKED = [
    (rule, function, settings)
    for rule, script, settings in rules_with_settings()
    for function in settings_calls(script)
]


def resolve(dotted: str):
    module, name = dotted.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_the_reader_finds_the_settings_calls():
    """Not vacuous: the calls of the truncated-Laplacian, DaRRM and permute-and-flip figures are found."""
    functions = {function for _, function, _ in CHECKED}
    assert len(CHECKED) >= 35, len(CHECKED)
    assert {
        "dpreplication.replications.truncated_laplace.figures.figure1_density",
        "dpreplication.replications.darrm.analytic.ensemble_errors",
        "dpreplication.replications.permute_and_flip.exact.worst_case",
        "dpreplication.replications.truncated_laplace.figures.figure3_power_ratio",
    } <= functions


@pytest.mark.parametrize("rule, function, settings", CHECKED, ids=lambda v: v if isinstance(v, str) else "")
def test_settings_from_the_config_have_no_default_in_the_signature(rule, function, settings):
    parameters = inspect.signature(resolve(function)).parameters
    defaulted = sorted(
        key for key in settings if key in parameters and parameters[key].default is not inspect.Parameter.empty
    )
    assert not defaulted, f"rule {rule}: {function} repeats the schema's default of {defaulted}: make them required"


def test_a_default_in_a_signature_is_caught(tmp_path):
    """Negative control: a settings call on a function with a default is found and flagged."""
    script = tmp_path / "script.py"
    script.write_text(
        "from dpreplication.replications.truncated_laplace import figures as tl\n"
        "settings = snakemake.params.settings\n"
        "tl.ratio_facts(**settings)\n"
        "FIGURES = {'a': tl.figure2_amplitude_ratio}\n"
        "FIGURES['a'](**snakemake.params.settings)\n"
    )
    assert sorted(settings_calls(script)) == [
        "dpreplication.replications.truncated_laplace.figures.figure2_amplitude_ratio",
        "dpreplication.replications.truncated_laplace.figures.ratio_facts",
    ]

    def with_a_default(epsilon, delta=0.1):
        return epsilon, delta

    parameters = inspect.signature(with_a_default).parameters
    assert [k for k in ("epsilon", "delta") if parameters[k].default is not inspect.Parameter.empty] == ["delta"]
    with pytest.raises(TypeError, match="stray"):
        inspect.signature(with_a_default).bind_partial(epsilon=1.0, stray=2)


@pytest.mark.parametrize("rule, function, settings", CHECKED, ids=lambda v: v if isinstance(v, str) else "")
def test_every_setting_is_a_parameter_of_its_function(rule, function, settings):
    """Config fit, for every paper: each key of the rule's settings names a parameter of the function
    its script unpacks them into (a stray or misspelt key fails here, not at run time)."""
    signature = inspect.signature(resolve(function))
    try:
        signature.bind_partial(**settings)
    except TypeError as error:
        pytest.fail(f"rule {rule}: settings {sorted(settings)} do not fit {function}{signature}: {error}")
