"""Run one rule's script outside Snakemake, in this process, for debugging (PyPSA-Eur's ``mock_snakemake``).

    python -m dpreplication.pipeline.debug pf_pmf_bars
    python -m dpreplication.pipeline.debug privgene_comparison_job pg_dataset=Adult task=lr repetitions=0-0
    python -m pdb -m dpreplication.pipeline.debug darrm_f3_errors --profile default
    python -m dpreplication.pipeline.debug pf_pmf_bars --variant scratch    # into results/scratch/

The rule's ``snakemake`` object (input, output, params, wildcards, log) is built from the workflow
as Snakemake would build it, and the script runs with it as a global, so a breakpoint or ``pdb``
stops inside the package. The job environment (threads, the instruction set's pins) is set before
numpy loads, as for a workflow job, so the numbers are the workflow's. The inputs must exist: run
``snakemake <an input>`` first, or the rule once. The outputs, log and sidecar are written where the
workflow writes them.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from pathlib import Path

from dpreplication.pipeline.instruction_sets import apply_job_environment

REPO = Path(__file__).resolve().parents[3]


def mock_snakemake(rule_name: str, profile: str = "quick", variant: str = "", snakefile: Path = REPO / "Snakefile",
                   **wildcards):  # fmt: skip
    """Return ``(snakemake, script)``: the object a ``script:`` job of ``rule_name`` gets, and its script.

    ``wildcards`` are the job's (e.g. ``pg_dataset="Adult"``); ``profile`` selects the configuration
    and ``variant`` names another output tree (``results/<variant>/``) to keep the run apart.
    """
    from dpreplication.pipeline.snakefile import load_workflow

    workflow = load_workflow(snakefile, config={"profile": profile, "variant": variant})
    from snakemake.dag import DAG  # after the API: importing it first is circular
    from snakemake.exceptions import IncompleteCheckpointException
    from snakemake.iocontainers import Snakemake
    from snakemake.jobs import Job
    from snakemake.settings.types import DAGSettings

    workflow.dag_settings = DAGSettings()
    rule = workflow.get_rule(rule_name)
    if not rule.script:
        raise SystemExit(f"rule {rule_name} runs no script")
    missing = sorted(set(rule.wildcard_names) - set(wildcards))
    if missing:
        raise SystemExit(f"rule {rule_name} needs the wildcards {missing}: pass them as name=value")
    try:
        job = Job(rule, DAG(workflow, rules=[rule]), wildcards)
    except IncompleteCheckpointException as incomplete:
        raise SystemExit(
            f"rule {rule_name} reads checkpoint {incomplete.rule.name}'s output: run `snakemake "
            f"{incomplete.targetfile} --config profile={profile}` first"
        ) from None
    script = (Path(snakefile).parent / "workflow" / "rules" / rule.script).resolve()  # rule files' relative path
    for path in job.output + job.log:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    snakemake = Snakemake(job.input, job.output, job.params, job.wildcards, job.threads, job.resources, job.log,
                          workflow.config, rule.name, None, script.parent)  # fmt: skip
    return snakemake, script


def main(argv: list[str] | None = None) -> None:
    """Parse ``RULE [name=value ...] [--profile P]``, pin the job environment, run the rule's script."""
    if "numpy" in sys.modules:  # it read its instruction-set pins at import: too late to set them
        raise SystemExit("run the debugger in a fresh interpreter: numpy is already imported, so the job "
                         "environment's pins cannot apply")  # fmt: skip
    apply_job_environment(os.environ)
    parser = argparse.ArgumentParser(prog="python -m dpreplication.pipeline.debug", description=__doc__.split("\n")[0])
    parser.add_argument("rule")
    parser.add_argument("wildcards", nargs="*", metavar="name=value")
    parser.add_argument("--profile", default="quick", choices=["quick", "default", "paper"])
    parser.add_argument("--variant", default="", help="write to results/<variant>/ instead of the profile's tree")
    arguments = parser.parse_args(argv)
    wildcards = dict(item.split("=", 1) for item in arguments.wildcards)
    os.chdir(REPO)
    snakemake, script = mock_snakemake(arguments.rule, arguments.profile, arguments.variant, **wildcards)
    runpy.run_path(str(script), init_globals={"snakemake": snakemake}, run_name="__main__")


if __name__ == "__main__":
    main()
