"""Which mechanisms make each published figure and table: ``docs/figures.md``, from the code itself.

For every rule that publishes under ``figures/<paper>/``, the map names its outputs, its script,
the rules upstream of it (Snakemake's rule graph: the jobs whose files it reads) and the
functions of the concept packages (:data:`CONCEPTS`) that those rules' scripts reach. A
function is *reached* when the package's static call graph leads to it from a script through
code outside the concept packages (the replications, the workflow helpers): the map lists where
the replication code hands over to a mechanism, learner, optimiser, accountant or statistical
test, not everything beneath. A call graph edge is any reference to a package function (a call,
or a function passed as a value, e.g. a job to ``workflow.for_each_repetition``), through the
package's imports and the subpackages' lazy exports.

``python -m dpreplication.figure_map docs/figures.md`` rewrites the map; a test fails when the
committed one is stale.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CONCEPTS = ("mechanisms", "accounting", "optimisation", "learning", "statistics")
"""Subpackages whose functions are the map's mechanisms (the rest orchestrates or draws)."""
PACKAGE = Path(__file__).resolve().parent
PAPERS = {
    "permute_and_flip": "Permute-and-flip (Ding et al.)",
    "truncated_laplace": "Truncated Laplacian (Geng et al.)",
    "darrm": "DaRRM (Jiang, Zhang & Joshi)",
    "privgene": "PrivGene (Zhang et al.)",
}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``dpreplication.<sub>.<module>`` of a file of the package (``__init__`` names its package)."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_file(dotted: str, package: Path) -> Path | None:
    path = package.parent.joinpath(*dotted.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


@cache
def _lazy_exports(init: Path) -> dict[str, str]:
    """Return ``_EXPORTS`` of a subpackage's ``__init__``: exported name -> defining submodule."""
    for node in ast.walk(ast.parse(init.read_text())):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_EXPORTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def _attribute(module: str, name: str, package: Path) -> str:
    """Return what ``module.name`` refers to: a submodule, a lazily exported function, or itself."""
    if _module_file(f"{module}.{name}", package) is not None:
        return f"{module}.{name}"
    file = _module_file(module, package)
    if file is not None and file.name == "__init__.py" and name in _lazy_exports(file):
        return f"{module}.{_lazy_exports(file)[name]}.{name}"
    return f"{module}.{name}"


def _is_module(dotted: str, package: Path) -> bool:
    return _module_file(dotted, package) is not None


def _imports(tree: ast.Module, package: Path) -> dict[str, str]:
    """Local name -> dotted package name (module or function), from every import in ``tree``."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package.name):
            for alias in node.names:
                names[alias.asname or alias.name] = _attribute(node.module, alias.name, package)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(package.name) and alias.asname:
                    names[alias.asname] = alias.name
    return names


def _references(nodes, module: str, local: set[str], imported: dict[str, str], package: Path) -> set[str]:
    """Dotted package names referenced in ``nodes``: local definitions, imported names, ``module.attr``."""
    found = set()
    for node in (n for root in nodes for n in ast.walk(root)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported:
            target = imported[node.value.id]
            if _is_module(target, package):
                found.add(_attribute(target, node.attr, package))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in local:
                found.add(f"{module}.{node.id}")
            elif node.id in imported and not _is_module(imported[node.id], package):
                found.add(imported[node.id])
    return found


def _definitions(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Module-level functions, classes and assigned names -> the nodes that define them."""
    definitions: dict[str, list[ast.AST]] = defaultdict(list)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[node.name].append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        definitions[name.id].append(node.value)
    return definitions


def call_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """``{dotted definition: dotted package names it references}`` over every module of ``package``."""
    graph: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        module = module_name(path, package)
        definitions = _definitions(tree)
        imported = _imports(tree, package)
        for name, nodes in definitions.items():
            graph[f"{module}.{name}"] = _references(nodes, module, set(definitions), imported, package) - {
                f"{module}.{name}"
            }
    return graph


def functions_and_classes(package: Path = PACKAGE) -> set[str]:
    """Dotted names of the module-level functions and classes of ``package`` (not its values)."""
    return {
        f"{module_name(path, package)}.{node.name}"
        for path in sorted(package.rglob("*.py"))
        for node in ast.parse(path.read_text()).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def script_references(script: Path, package: Path = PACKAGE) -> set[str]:
    """Dotted package names a workflow script references (its module-level code and functions)."""
    tree = ast.parse(Path(script).read_text())
    definitions = _definitions(tree)
    return _references([tree], "<script>", set(definitions), _imports(tree, package), package) - {
        f"<script>.{name}" for name in definitions
    }


def _concept(dotted: str, package: Path) -> bool:
    parts = dotted.split(".")
    return len(parts) > 2 and parts[0] == package.name and parts[1] in CONCEPTS


def mechanisms_reached(start: set[str], graph: dict[str, set[str]], package: Path = PACKAGE) -> set[str]:
    """Concept-package functions and classes reached from ``start`` without passing through another.

    A concept package's module-level value (a dispatch table such as ``EXACT_PMFS``) is passed
    through to the functions it holds.
    """
    callables = functions_and_classes(package)
    reached, seen, frontier = set(), set(), list(start)
    while frontier:
        name = frontier.pop()
        if name in seen:
            continue
        seen.add(name)
        if _concept(name, package) and name in callables:
            reached.add(name)
            continue
        frontier += graph.get(name, ())
    return reached


@dataclass(frozen=True)
class MapRow:
    """One publishing rule: its outputs, script, upstream rules and the mechanisms they reach."""

    paper: str
    rule: str
    outputs: tuple[str, ...]
    script: str
    upstream: tuple[str, ...]
    mechanisms: tuple[str, ...]


BEHIND_CHECKPOINTS = {"darrm_prediction_data": ("darrm_prediction_teachers",)}
"""Checkpoint -> the rules its dependents read from. Snakemake's rule graph cannot show these
before the checkpoint has run (the inputs are functions of its outputs); a test fails when a
rule is in neither the rule graph nor this table."""


def rule_graph(snakefile: Path) -> dict[str, set[str]]:
    """Return ``{rule: rules whose outputs it reads}`` from ``snakemake --rulegraph``.

    The rules hidden behind checkpoints (:data:`BEHIND_CHECKPOINTS`) are added to the checkpoints'
    dependents.
    """
    dot = subprocess.run(
        [sys.executable, "-m", "snakemake", "--rulegraph", "--forceall", "--cores", "1", "--snakefile", str(snakefile)],
        cwd=Path(snakefile).resolve().parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    labels = dict(re.findall(r'^\s*(\d+)\[label = "([^"]+)"', dot, re.M))
    parents: dict[str, set[str]] = defaultdict(set)
    for source, target in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.M):
        parents[labels[target]].add(labels[source])
    for checkpoint, hidden in BEHIND_CHECKPOINTS.items():
        for rule in hidden:
            parents[rule].add(checkpoint)
        for rule, sources in list(parents.items()):
            if checkpoint in sources and rule not in hidden:
                sources.update(hidden)
    return parents


def _ancestors(rule: str, parents: dict[str, set[str]]) -> set[str]:
    found, frontier = set(), [rule]
    while frontier:
        for parent in parents.get(frontier.pop(), ()):
            if parent not in found:
                found.add(parent)
                frontier.append(parent)
    return found


def figure_map(snakefile: Path) -> list[MapRow]:
    """One :class:`MapRow` per rule that publishes under ``figures/<paper>/``, in workflow order."""
    from dpreplication.cluster_resources import load_workflow

    root = Path(snakefile).resolve().parent
    workflow = load_workflow(snakefile)
    scripts = {
        rule.name: Path(rule.snakefile).parent / rule.script for rule in workflow.rules if rule.script is not None
    }
    parents = rule_graph(snakefile)
    graph = call_graph()
    rows = []
    for rule in workflow.rules:
        published = [Path(p) for p in rule.output if Path(p).parts[:1] == ("figures",) and len(Path(p).parts) == 3]
        if rule.name not in scripts or not published or published[0].parts[1] not in PAPERS:
            continue
        chain = [rule.name, *sorted(_ancestors(rule.name, parents) & set(scripts))]
        start = set().union(*(script_references(scripts[name]) for name in chain))
        rows.append(
            MapRow(
                paper=published[0].parts[1],
                rule=rule.name,
                outputs=tuple(sorted({p.stem for p in published if p.suffix in (".png", ".csv")})),
                script=str(scripts[rule.name].resolve().relative_to(root)),
                upstream=tuple(chain[1:]),
                mechanisms=tuple(sorted(mechanisms_reached(start, graph))),
            )
        )
    return rows


def _source_link(dotted: str) -> str:
    parts = dotted.split(".")
    module, function = parts[:3], ".".join(parts[3:])
    path = "../src/" + "/".join(module) + ".py"
    return f"[`{parts[2]}.{function}`]({path})"


def render(rows: list[MapRow]) -> str:
    """Return the map as Markdown: one table per paper, each row a publishing rule."""
    lines = [
        "# Figure map: from each published output to the code that makes it",
        "",
        "Generated by `python -m dpreplication.figure_map docs/figures.md` from the workflow's rule graph",
        "and the package's static call graph; `tests/test_figure_map.py` fails when it is stale.",
        "For each rule that publishes under `figures/<paper>/`: its outputs (figures as PNG + CSV,",
        "tables as CSV + Markdown, each with a JSON provenance sidecar), its script, the rules whose",
        "files it reads (directly or further up), and the functions of the concept packages",
        f"({', '.join(f'`{c}`' for c in CONCEPTS)}) that their scripts reach through the",
        "replication code: where the replication hands over to a mechanism, a learner, an optimiser,",
        "an accountant or a statistical test. Rerun one output with `snakemake --forcerun <rule>`.",
    ]
    for paper, title in PAPERS.items():
        lines += [
            "",
            f"## {title}",
            "",
            "| outputs | rule and script | upstream rules | mechanisms reached |",
            "|---|---|---|---|",
        ]
        for row in (r for r in rows if r.paper == paper):
            outputs = "<br>".join(f"`{name}`" for name in row.outputs)
            rule = f"`{row.rule}`<br>[{Path(row.script).name}](../{row.script})"
            upstream = "<br>".join(f"`{name}`" for name in row.upstream) or "—"
            mechanisms = "<br>".join(_source_link(name) for name in row.mechanisms) or "—"
            lines.append(f"| {outputs} | {rule} | {upstream} | {mechanisms} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """Write the map of the ``Snakefile`` beside ``src/`` to the path given (``docs/figures.md``)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m dpreplication.figure_map docs/figures.md", file=sys.stderr)
        return 2
    snakefile = PACKAGE.parents[1] / "Snakefile"
    Path(argv[0]).write_text(render(figure_map(snakefile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
