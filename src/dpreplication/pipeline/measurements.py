"""A finished run's measurements: each rule's Snakemake ``benchmark:`` records and each job's exact usage.

Every job rule writes a benchmark record (wall seconds ``s``, ``max_rss`` in MB, ``cpu_time``) and,
beside it, the job's exact CPU time and peak memory (``<record>.usage.json``,
:func:`~dpreplication.pipeline.jobs.record_usage`). Read by
:mod:`~dpreplication.pipeline.cluster_resources` and :mod:`~dpreplication.pipeline.cost_page`.
"""

from __future__ import annotations

import glob
import json
import os
import re
from pathlib import Path

import pandas as pd

from dpreplication.pipeline.jobs import USAGE_SUFFIX

BATCH = re.compile(r"(?:reps|runs)(\d+-\d+)\.\w+$")
"""A batched job's record or output, ``reps<first>-<last>`` (``runs`` for k-means): its batch label."""


def benchmark_globs(workflow, records: Path) -> dict[str, str]:
    """``{rule: glob of its benchmark records under records}`` for every rule with a ``benchmark:`` directive.

    The rules are those of ``workflow`` (:func:`~dpreplication.pipeline.snakefile.load_workflow`). Each glob is the directive's path
    below the run's records tree (the directives' common directory), wildcards as ``*``.
    """
    paths = {rule.name: str(rule.benchmark) for rule in workflow.rules if rule.benchmark is not None}
    tree = os.path.commonpath(list(paths.values()))
    return {
        rule: str(Path(records) / re.sub(r"\{[^{}]+\}", "*", os.path.relpath(path, tree)))
        for rule, path in paths.items()
    }


def benchmark_records(workflow, records: Path) -> dict[str, list[str]]:
    """``{rule: its benchmark records under records}``, each file given to the one rule that names it.

    A file is a rule's when its glob finds it and its directive's pattern, wildcard constraints
    included, matches it. The globs alone overlap: ``prediction_teachers_*_*.tsv`` also finds the seed replicates'
    ``prediction_teachers_mnist_private_1.tsv``, whose CPU a rule's total then counted twice.
    """
    paths = {rule.name: rule.benchmark for rule in workflow.rules if rule.benchmark is not None}
    tree = os.path.commonpath([str(path) for path in paths.values()])
    found = {}
    for rule, pattern in benchmark_globs(workflow, records).items():
        named = paths[rule].regex()
        found[rule] = [
            path
            for path in sorted(glob.glob(pattern))
            if named.match(os.path.join(tree, os.path.relpath(path, records)))
        ]
    return found


def read_record(path: str | Path) -> pd.DataFrame:
    """One job's benchmark record, its CPU time and peak memory replaced by the job's exact record.

    The job's own record (``<record>.usage.json``, :func:`~dpreplication.pipeline.jobs.record_usage`)
    replaces Snakemake's sampled ``cpu_time`` and ``max_rss``; ``exact`` says whether there was one
    (a job that never called ``start``, or a run from before the record existed, keeps the sample).
    """
    record = pd.read_csv(path, sep="\t").assign(path=str(path), exact=False)
    usage_file = Path(path).with_suffix(USAGE_SUFFIX)
    if usage_file.is_file():
        usage = json.loads(usage_file.read_text())
        record = record.assign(cpu_time=usage["cpu_s"], max_rss=usage["max_rss_mb"], exact=True)
    return record
