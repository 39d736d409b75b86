"""Which code makes each published figure and table: ``docs/figures.md``, from the workflow itself.

For every rule that publishes under ``figures/<paper>/``, the map names its outputs, its script,
the plotting function that draws each of its figures (the drawing rule's), the rules upstream of it
(Snakemake's rule graph: the jobs whose files it reads) and the package functions those rules'
scripts call (:func:`~dpreplication.pipeline.provenance.package_calls`, the workflow machinery
left out): one frame from the rule to the replication code, which hands over to the mechanisms
in a frame or two more.

For a figure of private releases the map also says what ran: the mechanisms that spent its
points' privacy and the number of releases, read from the committed run's privacy ledger (the
digest in the figure's sidecar, :mod:`dpreplication.accounting.ledger`).

``python -m dpreplication.pipeline.figure_map docs/figures.md`` rewrites the map; a test fails when the
committed one is stale.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from dpreplication.pipeline.code_graph import PACKAGE, module_file
from dpreplication.pipeline.provenance import package_calls, read_sidecar

PIPELINE = "dpreplication.pipeline."
"""The workflow machinery (job start, publishing): bookkeeping, left out of a figure's calls."""
PAPERS = {
    "permute_and_flip": "Permute-and-flip (Ding et al.)",
    "truncated_laplace": "Truncated Laplacian (Geng et al.)",
    "darrm": "DaRRM (Jiang, Zhang & Joshi)",
    "privgene": "PrivGene (Zhang et al.)",
}


@dataclass(frozen=True)
class MapRow:
    """One publishing rule: its outputs, script, upstream rules and the package functions their scripts call."""

    paper: str
    rule: str
    outputs: tuple[str, ...]
    script: str
    upstream: tuple[str, ...]
    calls: tuple[str, ...]
    spent: tuple[str, ...] = ()
    """Per output with a privacy ledger in the committed run: its releases and the mechanisms that spent."""
    drawn: tuple[str, ...] = ()
    """Per figure of the rule: ``"<name>.png: <module>.<function>"``, the plotting function its drawing rule calls."""


BEHIND_CHECKPOINTS = {
    "darrm_prediction_data": (
        "darrm_prediction_teachers",
        "darrm_prediction_teacher_replicate",
        "darrm_prediction_teacher_ablation_config",
    ),
    "privgene_comparison_plan": ("privgene_comparison_extra_job",),
}
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


def ancestors(rule: str, parents: dict[str, set[str]]) -> set[str]:
    """Every rule upstream of ``rule`` in the graph ``{rule: rules whose outputs it reads}``."""
    found, frontier = set(), [rule]
    while frontier:
        for parent in parents.get(frontier.pop(), ()):
            if parent not in found:
                found.add(parent)
                frontier.append(parent)
    return found


def figure_map(snakefile: Path) -> list[MapRow]:
    """One :class:`MapRow` per rule that publishes under ``figures/<paper>/``, in workflow order."""
    from dpreplication.pipeline.snakefile import load_workflow

    root = Path(snakefile).resolve().parent
    workflow = load_workflow(snakefile)
    scripts = {
        rule.name: Path(rule.snakefile).parent / rule.script for rule in workflow.rules if rule.script is not None
    }
    parents = rule_graph(snakefile)
    drawings = {
        rule.input["sidecar"]: f"{Path(rule.output['png']).name}: {rule.params['drawing']}"
        for rule in workflow.rules
        if rule.name.startswith("draw_")
    }
    rows = []
    for rule in workflow.rules:
        published = [Path(p) for p in rule.output if Path(p).parts[:1] == ("figures",) and len(Path(p).parts) == 3]
        if rule.name not in scripts or not published or published[0].parts[1] not in PAPERS:
            continue
        if rule.name.startswith("draw_"):
            continue
        chain = [rule.name, *sorted(ancestors(rule.name, parents) & set(scripts))]
        calls = {call for name in chain for call in package_calls(scripts[name]) if not call.startswith(PIPELINE)}
        rows.append(
            MapRow(
                paper=published[0].parts[1],
                rule=rule.name,
                outputs=tuple(
                    sorted(
                        {p.stem for p in published if p.suffix in (".png", ".csv")}
                        - {p.stem for p in published if p.name.endswith(".ledger.csv")}
                    )
                ),
                script=str(scripts[rule.name].resolve().relative_to(root)),
                upstream=tuple(chain[1:]),
                calls=tuple(sorted(calls)),
                spent=ledger_digests(root, published),
                drawn=tuple(drawings[str(path)] for path in published if str(path) in drawings),
            )
        )
    return rows


def ledger_digests(root: Path, published: list[Path]) -> tuple[str, ...]:
    """``"<name>: N releases, by <mechanisms>"`` per published ledger that the committed run wrote."""
    digests = []
    for path in published:
        sidecar = root / path.with_name(path.name.replace(".ledger.csv", ".json"))
        if path.name.endswith(".ledger.csv") and sidecar.is_file():
            digest = read_sidecar(sidecar).get("ledger")
            if digest is not None:
                names = ", ".join(f"`{name}`" for name in digest["mechanisms"])
                digests.append(f"{path.name.removesuffix('.ledger.csv')}: {digest['releases']} releases by {names}")
    return tuple(digests)


def _source_link(dotted: str) -> str:
    """Link a dotted package name to its module's source: the longest prefix that is a module."""
    parts = dotted.split(".")
    cut = next(cut for cut in range(len(parts) - 1, 0, -1) if module_file(".".join(parts[:cut])) is not None)
    path = module_file(".".join(parts[:cut])).relative_to(PACKAGE.parents[1]).as_posix()
    return f"[`{'.'.join(parts[cut - 1 :])}`](../{path})"


def _plotting_link(function: str) -> str:
    module = function.split(".")[0]
    return f"[`plotting.{function}`](../src/dpreplication/plotting/{module}.py)"


def render(rows: list[MapRow]) -> str:
    """Return the map as Markdown: one table per paper, each row a publishing rule."""
    lines = [
        "# Figure map: from each published output to the code that makes it",
        "",
        "Generated by `python -m dpreplication.pipeline.figure_map docs/figures.md` from the workflow's rules and",
        "the committed run's sidecars; `tests/test_figure_map.py` fails when it is stale.",
        "For each rule that publishes under `figures/<paper>/`: its outputs (figures and tables as CSV,",
        "tables also as Markdown, each with a JSON provenance sidecar), its script and, for each figure,",
        "the plotting function its drawing rule `draw_<paper>_<name>` draws the PNG with; the rules whose",
        "files it reads (directly or further up), and the package functions that these rules' scripts",
        "call (the workflow machinery left out): the replication code, or the mechanism itself, one",
        "frame from the rule. For a figure of private releases, the last column says what ran: the",
        "releases behind its points and the mechanisms that spent their privacy, from the committed",
        "run's privacy ledger (`docs/ledger.md`).",
        "Rerun one output with `.venv/bin/snakemake <rule> --forcerun <rule>`.",
    ]
    for paper, title in PAPERS.items():
        lines += [
            "",
            f"## {title}",
            "",
            "| outputs | rule and script | upstream rules | functions the scripts call | privacy spent (ledger) |",
            "|---|---|---|---|---|",
        ]
        for row in (r for r in rows if r.paper == paper):
            outputs = "<br>".join(f"`{name}`" for name in row.outputs)
            rule = f"`{row.rule}`<br>[{Path(row.script).name}](../{row.script})" + "".join(
                f"<br>drawn: `{name}` by {_plotting_link(function)}"
                for name, function in (drawn.split(": ") for drawn in row.drawn)
            )
            upstream = "<br>".join(f"`{name}`" for name in row.upstream) or "—"
            calls = "<br>".join(_source_link(name) for name in row.calls) or "—"
            spent = "<br>".join(row.spent) or "—"
            lines.append(f"| {outputs} | {rule} | {upstream} | {calls} | {spent} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """Write the map of the ``Snakefile`` beside ``src/`` to the path given (``docs/figures.md``)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m dpreplication.pipeline.figure_map docs/figures.md", file=sys.stderr)
        return 2
    snakefile = PACKAGE.parents[1] / "Snakefile"
    Path(argv[0]).write_text(render(figure_map(snakefile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
