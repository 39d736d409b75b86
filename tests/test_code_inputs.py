"""Every rule's ``code`` inputs cover the package modules its script imports, directly or through
other modules, so that editing any of them reruns the rule (``rerun-triggers: input``).

The imports are read from the source (module level and inside functions, which the scripts'
lazy imports use), and a name imported from a subpackage is followed through its lazy-export
table (``_EXPORTS`` in the subpackage's ``__init__``) to the module that defines it. One
exception, by design (``code_inputs(..., plots=False)`` in ``workflow/rules/common.smk``): a rule
that only computes does not depend on the plotting package, which ``workflow.publish`` imports
lazily for figures, so that editing a plot never reruns hours of jobs.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "dpreplication"
RULES = REPO / "workflow" / "rules"


def module_file(dotted: str) -> Path | None:
    """The file of ``dpreplication.<dotted>`` (a module or a package's ``__init__``), or None."""
    path = PACKAGE.joinpath(*dotted.split(".")[1:])
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


@cache
def lazy_exports(package_init: Path) -> dict[str, str]:
    """``_EXPORTS`` of a subpackage's ``__init__``: exported name -> submodule name."""
    for node in ast.walk(ast.parse(package_init.read_text())):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_EXPORTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def imported_modules(path: Path) -> set[str]:
    """Dotted names of the package modules ``path`` imports (anywhere in the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("dpreplication")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpreplication"):
            found.add(node.module)
            init = module_file(node.module)
            for alias in node.names:
                if module_file(f"{node.module}.{alias.name}") is not None:
                    found.add(f"{node.module}.{alias.name}")
                elif init is not None and init.name == "__init__.py" and alias.name in lazy_exports(init):
                    found.add(f"{node.module}.{lazy_exports(init)[alias.name]}")
    return found


@cache
def closure(path: Path) -> frozenset[Path]:
    """Every package source file that ``path`` reaches through imports (itself excluded)."""
    seen: set[Path] = set()
    stack = [path]
    while stack:
        for dotted in imported_modules(stack.pop()):
            target = module_file(dotted)
            if target is not None and target not in seen:
                seen.add(target)
                stack.append(target)
    return frozenset(seen)


def scripted_rules():
    """(rule name, script path, code input paths) of every rule of the workflow that runs a script."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings()) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(config={"profile": "quick"}),
            snakefile=REPO / "Snakefile",
            workdir=REPO,
        )._workflow
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
    needed = {path for path in closure(script) if path.name != "__init__.py"}
    if not any(plotting in path.parents for path in code):
        needed = {path for path in needed if plotting not in path.parents}
    missing = sorted(str(path.relative_to(PACKAGE)) for path in needed - code)
    assert not missing, f"rule {name}: {script.name} imports modules that are not code inputs: {missing}"


def test_the_import_reader_follows_lazy_exports(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "from dpreplication.mechanisms import permute_and_flip_pmf\n"
        "def later():\n    from dpreplication.replications import darrm_verified\n"
    )
    reached = {str(path.relative_to(PACKAGE)) for path in closure(script)}
    assert {"mechanisms/selection.py", "replications/darrm_verified.py", "replications/darrm_lemmas.py"} <= reached
