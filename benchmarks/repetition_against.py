"""One PrivGene comparison repetition (Fig. 3 or 4) by this checkout's code against an older commit's.

Both run the same job in the same session, alternately, each in a fresh interpreter under the
jobs' pinned environment (:data:`dpreplication.pipeline.instruction_sets.JOB_ENVIRONMENT`): every method of
the task's series over the ε grid on the folds of one repetition (and NoPrivacy, the reference job
of the same folds), with this checkout's configuration. Per method it records the CPU seconds
(``time.process_time``, the fastest of the rounds) and the released models, and it states:

- the CPU ratio, old over new, per method and for the whole repetition;
- how many released models are bit-identical, and the largest difference of the others;
- how many misclassification rates are identical, and the largest difference of the others.

Usage (after the data of ``--dataset`` exist, e.g. from ``make replicate`` or ``make quick``)::

    .venv/bin/python benchmarks/repetition_against.py --against 893f369 --dataset Adult --task lr

The older commit's ``src/`` is checked out into a temporary folder (``git worktree``); the
results go to ``benchmarks/records/repetition_against/<dataset>-<task>.json`` and a Markdown table
on standard output. A benchmark, not a test: its times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def run_repetition(dataset: str, task: str, repetition: int, checkout: str, output: str) -> None:
    """Worker: run one repetition with whichever ``dpreplication`` is importable; pickle what it released."""
    import time
    from types import SimpleNamespace

    from dpreplication.data import tabular
    from dpreplication.pipeline.config import profile_config
    from dpreplication.replications.privgene import jobs, rule_settings
    from dpreplication.replications.privgene import methods as privgene_methods

    config = profile_config("default", checkout)
    section, seed = config["privgene"], config["seed"]
    data = tabular.load(f"{checkout}/results/default/work/privgene/data/{dataset}.npz")
    reference = rule_settings.figure_job(section, "reference", algorithm=False)
    svm_c = None if task == "lr" else section["algorithm"]["svm_C"]
    plan = [(name, jobs.comparison(task, name, **kw))
            for name, kw in rule_settings.comparison_job(section, SimpleNamespace(task=task)).items()]  # fmt: skip
    plan.append(("NoPrivacy", jobs.reference(task, "NoPrivacy", epsilon=reference["epsilon"], svm_C=svm_c,
                                             folds=reference["folds"], use_folds=reference["use_folds"])))  # fmt: skip
    released, cpu, values = {}, {}, {}
    for name, job in plan:
        release = privgene_methods.RELEASE[name]
        models = released.setdefault(name, [])

        def recording(state, epsilon, rng, release=release, models=models):
            result = release(state, epsilon, rng)
            models.append(np.array(result.model, dtype=float, copy=True))
            return result

        jobs.RELEASE[name] = recording
        start = time.process_time()
        rows = jobs.run_job(data, job, repetition, seed=seed)
        cpu[name] = time.process_time() - start
        values[name] = rows["error"].to_numpy()
    with open(output, "wb") as handle:
        pickle.dump({"cpu": cpu, "released": released, "values": values}, handle)


def measure(source: Path, arguments: argparse.Namespace, scratch: Path, label: str) -> dict:
    """Run the worker on ``source``'s package in a fresh interpreter under the jobs' environment."""
    from dpreplication.pipeline.instruction_sets import apply_job_environment

    environment = dict(os.environ)
    apply_job_environment(environment)
    environment["PYTHONPATH"] = str(source / "src")
    output = scratch / f"{label}.pkl"
    command = [sys.executable, __file__, "--worker", arguments.dataset, arguments.task, str(arguments.repetition),
               str(REPO), str(output)]  # fmt: skip
    subprocess.run(command, env=environment, check=True, cwd=scratch)
    with open(output, "rb") as handle:
        return pickle.load(handle)


def compare(old: list[dict], new: list[dict]) -> list[dict]:
    """Per method: the fastest round's CPU of each side, their ratio, and how far the outputs moved."""
    rows = []
    for name in new[0]["cpu"]:
        before, after = min(r["cpu"][name] for r in old), min(r["cpu"][name] for r in new)
        models = list(zip(old[0]["released"][name], new[0]["released"][name], strict=True))
        moved = [float(np.max(np.abs(a - b))) for a, b in models if not np.array_equal(a, b)]
        rates = np.abs(old[0]["values"][name] - new[0]["values"][name])
        rows.append({
            "method": name, "cpu_before": before, "cpu_after": after, "ratio": before / after,
            "releases": len(models), "bit_identical": len(models) - len(moved), "largest_model_change": max(moved, default=0.0),
            "rates": len(rates), "rates_identical": int(np.sum(rates == 0)), "largest_rate_change": float(rates.max()),
        })  # fmt: skip
    total_before, total_after = sum(r["cpu_before"] for r in rows), sum(r["cpu_after"] for r in rows)
    rows.append({"method": "whole repetition", "cpu_before": total_before, "cpu_after": total_after,
                 "ratio": total_before / total_after})  # fmt: skip
    return rows


def markdown(rows: list[dict], arguments: argparse.Namespace) -> str:
    """The comparison as a Markdown table."""
    lines = [
        f"One repetition of {arguments.dataset} {arguments.task}, {arguments.against} against this checkout "
        f"(fastest of {arguments.rounds} alternating rounds, CPU-s under the jobs' pinned environment):",
        "",
        "| method | CPU-s before | CPU-s after | ratio | released models bit-identical | largest model change "
        "| rates identical | largest rate change |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "releases" in r:
            lines.append(
                f"| {r['method']} | {r['cpu_before']:.2f} | {r['cpu_after']:.2f} | {r['ratio']:.2f}× "
                f"| {r['bit_identical']} of {r['releases']} | {r['largest_model_change']:.3g} "
                f"| {r['rates_identical']} of {r['rates']} | {r['largest_rate_change']:.3g} |"
            )
        else:
            lines.append(
                f"| **{r['method']}** | {r['cpu_before']:.2f} | {r['cpu_after']:.2f} | **{r['ratio']:.2f}×** | | | | |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="893f369", help="the older commit")
    parser.add_argument("--dataset", default="Adult")
    parser.add_argument("--task", default="lr", choices=["lr", "svm"])
    parser.add_argument("--repetition", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of old and new")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scratch, older = Path(folder), Path(folder) / "older"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(older), arguments.against],
                       check=True, capture_output=True)  # fmt: skip
        try:
            old, new = [], []
            for round_ in range(arguments.rounds):
                old.append(measure(older, arguments, scratch, f"old{round_}"))
                new.append(measure(REPO, arguments, scratch, f"new{round_}"))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(older)], check=True)
    rows = compare(old, new)
    record = REPO / "benchmarks" / "records" / "repetition_against" / f"{arguments.dataset}-{arguments.task}.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"against": arguments.against, "rounds": arguments.rounds, "rows": rows}, indent=1))
    print(markdown(rows, arguments))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        run_repetition(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
    else:
        main()
