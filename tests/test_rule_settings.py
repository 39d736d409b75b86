"""One convention for the settings of every paper's rules, and a DAG built without torch.

A rule's ``settings`` param is ``rule_settings(PAPER, "<rule without the paper's prefix>")``
(``workflow/rules/common.smk``), which calls the paper's one settings function,
``dpreplication.replications.<paper>.rule_settings.rule_settings(rule, config[paper], wildcards)``;
those modules import nothing heavy, so the workflow is read and planned without torch or Opacus,
and ``common.smk`` shapes no paper's settings itself.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from snakemake.exceptions import WorkflowError

from dpreplication.pipeline.code_graph import import_closure
from dpreplication.pipeline.snakefile import load_workflow

REPO = Path(__file__).resolve().parents[1]
RULES_DIR = REPO / "workflow" / "rules"
PAPERS = {
    "permute_and_flip": ("pf_", "PF"),
    "truncated_laplace": ("tl_", "TL"),
    "darrm": ("darrm_", "DR"),
    "privgene": ("privgene_", "PG"),
}
"""Paper -> its rules' name prefix and the constant its .smk names it by."""
HIDDEN = ("torch", "opacus")
TRAINING_MODULES = (
    "dpreplication.learning",
    "dpreplication.replications.darrm.teachers",
    "dpreplication.replications.darrm.teacher_ablation",
    "dpreplication.replications.privgene.jobs",
)
"""Modules that train or run jobs: the DAG is built without importing any of them."""
REMOVED_HELPERS = (
    "darrm_settings",
    "darrm_lp_cases",
    "darrm_prediction_settings",
    "darrm_teacher_settings",
    "darrm_ablation_settings",
    "darrm_ablation_config_settings",
    "darrm_data_probe",
    "privgene_settings",
    "PURE_DP",
)
"""What common.smk shaped papers' settings with before this convention."""


def settings_module(paper: str):
    return importlib.import_module(f"dpreplication.replications.{paper}.rule_settings")


WORKFLOW = load_workflow(REPO / "Snakefile")
CONFIG = WORKFLOW.globals["config"]
PAPER_RULES = [
    (paper, rule)
    for rule in WORKFLOW.rules
    for paper, (prefix, _) in PAPERS.items()
    if rule.name.startswith(prefix) and rule.script
]
PRIVGENE_FIGURES = {f"privgene_{figure}" for figure in WORKFLOW.globals["PG_COMPARISON_FIGURES"]}
"""Figs 3–5, one rule each from a loop, share two shapes (``comparison_figure``, ``kmeans_figure``)."""


def sample_wildcards() -> SimpleNamespace:
    """Wildcards every paper's shapes accept: a teacher set, an ablation configuration, a PrivGene job."""
    grid = CONFIG["privgene"]["choice_of_c"]["c_grid"]
    return SimpleNamespace(
        dataset="mnist",
        kind="private",
        config=CONFIG["darrm"]["teacher_ablation"]["configs"][0]["name"],
        pg_dataset="US",
        task="lr",
        method="PrivGene",
        c=settings_module("privgene").c_label(grid[0]),
    )


def test_every_papers_rule_takes_its_settings_from_its_papers_function():
    """Each scripted rule of a paper has a ``settings`` param made by ``rule_settings`` in common.smk for
    its own paper and name (Figs 3–5 aside: a shared shape), every shape belongs to a rule, and the
    param is the paper's function of the validated config section."""
    assert len(PAPER_RULES) > 70, len(PAPER_RULES)
    # Read afresh: a params function reads the ``config`` of the workflow loaded last in this
    # process, and other test modules load the workflow with other profiles.
    workflow = load_workflow(REPO / "Snakefile")
    rules = [(paper, workflow.get_rule(rule.name)) for paper, rule in PAPER_RULES]
    used = {paper: set() for paper in PAPERS}
    for paper, rule in rules:
        settings = dict(rule.params.items()).get("settings")
        assert getattr(settings, "paper", None) == paper, f"rule {rule.name}: settings not from rule_settings({paper})"
        module = settings_module(paper)
        assert settings.rule in module.RULES, rule.name
        if rule.name not in PRIVGENE_FIGURES:
            assert settings.rule == rule.name.removeprefix(PAPERS[paper][0]), rule.name
        used[paper].add(settings.rule)
        if not rule.wildcard_names:
            expected = module.rule_settings(settings.rule, workflow.globals["config"][paper])
            assert settings(SimpleNamespace()) == expected == module.rule_settings(settings.rule, CONFIG[paper]), (
                rule.name
            )
    for paper in PAPERS:
        assert used[paper] == set(settings_module(paper).RULES), f"{paper}: shapes of no rule"


def test_a_rules_other_param_functions_map_its_inputs_only():
    """Besides ``settings``, a paper rule's params are constants (seed, figure label, library
    versions) or functions of its inputs (which file is which dataset's): no second settings path."""
    for _, rule in PAPER_RULES:
        for name, value in rule.params.items():
            if name != "settings" and callable(value):
                assert "input" in inspect.signature(value).parameters, f"rule {rule.name}: param {name}"


@pytest.mark.parametrize("paper", PAPERS)
def test_each_papers_rules_file_calls_its_settings_function(paper):
    """The text: every ``settings=`` of ``workflow/rules/<paper>.smk`` is ``rule_settings(<PAPER>, ...)``."""
    constant = PAPERS[paper][1]
    lines = re.findall(r"^\s+settings=(.*),$", (RULES_DIR / f"{paper}.smk").read_text(), re.M)
    assert lines and all(re.search(rf"\brule_settings\({constant}, ", line) for line in lines), lines


def test_common_smk_shapes_no_papers_settings():
    """common.smk keeps the workflow's machinery (inputs, paths, the data probe) and the one generic
    ``rule_settings``: no helper that shapes a paper's settings, no import of a paper's modules but
    its settings module and PrivGene's dataset table."""
    text = (RULES_DIR / "common.smk").read_text()
    defined = set(re.findall(r"^def (\w+)\(", text, re.M)) | set(re.findall(r"^(\w+) = ", text, re.M))
    assert not defined & set(REMOVED_HELPERS), defined & set(REMOVED_HELPERS)
    prefixes = tuple(prefix for prefix, _ in PAPERS.values())
    assert not [name for name in defined if name.startswith(prefixes) and "settings" in name]
    imported = set(re.findall(r"dpreplication\.replications\.([\w.]+)", text))
    assert imported <= {"darrm.rule_settings", "privgene.rule_settings", "privgene.datasets"}, imported


@pytest.mark.parametrize("paper", PAPERS)
def test_a_settings_module_imports_only_the_standard_library(paper):
    """Static: no package module in its import closure, no third-party import (so no torch, ever)."""
    path = Path(settings_module(paper).__file__)
    assert not import_closure(path), import_closure(path)
    roots = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert roots <= set(sys.stdlib_module_names) | {"__future__"}, roots


@pytest.mark.parametrize("paper", PAPERS)
def test_an_unknown_rule_is_refused_naming_the_known(paper):
    """By the paper's function, and by the workflow's as the Snakefile is read (not when a job runs)."""
    with pytest.raises(KeyError, match="known"):
        settings_module(paper).rule_settings("fig99", CONFIG[paper])
    with pytest.raises(WorkflowError, match="known are"):
        WORKFLOW.globals["rule_settings"](paper, "fig99")


def test_the_training_modules_use_the_settings_modules_shapes():
    """One definition of what a teacher set and an ablation configuration depend on."""
    from dpreplication.replications.darrm import rule_settings, teacher_ablation, teachers

    assert teachers.teacher_settings is rule_settings.teacher_settings and teachers.KINDS is rule_settings.KINDS
    assert teacher_ablation.ablation_settings is rule_settings.ablation_settings
    assert teacher_ablation.configuration_settings is rule_settings.configuration_settings


def without_libraries(directory: Path, names=HIDDEN) -> dict:
    """An environment in which importing any of ``names`` raises ModuleNotFoundError (stub packages
    first on PYTHONPATH, as ``tests/test_faults.py`` hides the optional libraries)."""
    for name in names:
        (directory / name).mkdir(parents=True, exist_ok=True)
        (directory / name / "__init__.py").write_text(
            f'raise ModuleNotFoundError("No module named {name!r} (hidden by a test)", name={name!r})\n'
        )
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(directory), os.environ.get("PYTHONPATH", "")])}


def dry_run(checkout: Path, environment: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--quiet", "rules", "--config", "profile=default"],
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


EVALUATE = """
import sys
from pathlib import Path
from types import SimpleNamespace

from dpreplication.pipeline.snakefile import load_workflow

workflow = load_workflow(Path(sys.argv[1]), config={"profile": "default"})
wildcards = SimpleNamespace(**dict(arg.split("=", 1) for arg in sys.argv[2:]))
count = 0
for rule in workflow.rules:
    settings = dict(rule.params.items()).get("settings")
    if hasattr(settings, "paper") and rule.name != "darrm_prediction_data":  # that one probes the data
        settings(wildcards)
        count += 1
print("evaluated", count)
print("imported", sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "opacus") or m.startswith(%r)))
"""


def test_the_dag_builds_without_torch(tmp_path):
    """With torch and Opacus not importable, the default profile's dry run succeeds and every paper
    rule's settings are computed (a teacher set's, an ablation configuration's, PrivGene's jobs'),
    importing no training module."""
    environment = without_libraries(tmp_path / "hidden")
    planned = dry_run(REPO, environment)
    assert planned.returncode == 0, planned.stderr[-3000:]
    assert "Job stats" in planned.stdout + planned.stderr
    wildcards = [f"{key}={value}" for key, value in vars(sample_wildcards()).items()]
    script = EVALUATE % (TRAINING_MODULES,)
    evaluated = subprocess.run(
        [sys.executable, "-c", script, str(REPO / "Snakefile"), *wildcards],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    assert f"evaluated {len(PAPER_RULES) - 1}" in evaluated.stdout, evaluated.stdout
    assert "imported []" in evaluated.stdout, evaluated.stdout


def test_a_settings_module_importing_torch_breaks_the_dry_run(tmp_path):
    """Negative control: ``import torch`` planted at the top of one settings module (in a copy of the
    workflow and package) stops the same dry run, naming torch and the module."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("Snakefile", "requirements.lock"):
        shutil.copyfile(REPO / name, checkout / name)
    for folder in ("config", "profiles", "workflow"):
        shutil.copytree(REPO / folder, checkout / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "src", checkout / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    planted = checkout / "src" / "dpreplication" / "replications" / "darrm" / "rule_settings.py"
    future = "from __future__ import annotations\n"  # first; the plant goes right under it
    planted.write_text(planted.read_text().replace(future, f"{future}import torch\n", 1))
    assert "import torch" in planted.read_text()
    environment = without_libraries(tmp_path / "hidden")
    environment["PYTHONPATH"] = os.pathsep.join([str(checkout / "src"), environment["PYTHONPATH"]])
    failed = dry_run(checkout, environment)
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0, output[-3000:]
    assert "No module named 'torch' (hidden by a test)" in output, output[-3000:]
    assert "darrm/rule_settings.py" in output, output[-3000:]
