"""Each job's exact resource record: CPU time and peak memory at exit, its children's included,
beside its Snakemake benchmark record (which samples every 30 s and under-counts)."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpreplication.pipeline.jobs import USAGE_SUFFIX, record_usage, usage_path
from dpreplication.pipeline.snakefile import load_workflow

REPO = Path(__file__).resolve().parents[1]
OWN_BUSY_S, CHILD_BUSY_S = 16.0, 4.0
"""The known cost of the test job: CPU seconds of busy work in the job's process and in a child."""


def test_the_record_lies_beside_the_benchmark_of_the_log():
    assert usage_path("logs/default/privgene/comparison/Adult/lr/reps0-4.log") == Path(
        "benchmarks/records/default/privgene/comparison/Adult/lr/reps0-4" + USAGE_SUFFIX
    )
    assert usage_path("/tmp/debug/x.log") is None and usage_path("elsewhere/x.log") is None


def test_every_rule_keeps_its_benchmark_at_its_logs_path():
    """The house rule that lets a job find where its usage record goes from its own log."""
    workflow = load_workflow(REPO / "Snakefile")
    for rule in workflow.rules:
        if rule.benchmark is not None:
            log = str(rule.log[0])
            assert usage_path(log) == Path(str(rule.benchmark)).with_suffix(USAGE_SUFFIX), rule.name


def test_record_usage_writes_cpu_and_memory(tmp_path):
    usage = record_usage(tmp_path / "a" / ("job" + USAGE_SUFFIX))
    assert json.loads((tmp_path / "a" / ("job" + USAGE_SUFFIX)).read_text()) == usage
    assert usage["cpu_s"] == pytest.approx(usage["user_s"] + usage["system_s"])
    assert usage["cpu_s"] > 0 and 10 < usage["max_rss_mb"] < 10_000  # MB: a KiB count would be ~1000x
    assert record_usage(None) is None


BURN = """\
import subprocess
import sys
import time

from dpreplication.pipeline.jobs import start

start(snakemake)
busy = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < {child}: pass"
child = subprocess.Popen([sys.executable, "-c", busy])
t = time.process_time()
while time.process_time() - t < {own}:
    pass
child.wait()
open(snakemake.output[0], "w").write("done\\n")
"""


def test_a_job_of_known_cost_records_it_within_5_percent(tmp_path):
    """A job burns 16 CPU-s itself and 4 in a child: its record says 20 CPU-s within 5 %.

    Snakemake's own record of the same job is printed beside it (it samples from 15 s on, every 30 s).
    """
    (tmp_path / "burn.py").write_text(BURN.format(own=OWN_BUSY_S, child=CHILD_BUSY_S))
    (tmp_path / "Snakefile").write_text(
        textwrap.dedent(
            """\
            rule burn:
                output: "out.txt"
                log: "logs/t/burn.log"
                benchmark: "benchmarks/records/t/burn.tsv"
                script: "burn.py"
            """
        )
    )
    subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", "all"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    usage = json.loads((tmp_path / "benchmarks/records/t" / ("burn" + USAGE_SUFFIX)).read_text())
    known = OWN_BUSY_S + CHILD_BUSY_S
    sampled = (tmp_path / "benchmarks/records/t/burn.tsv").read_text().splitlines()
    print(f"exact record {usage['cpu_s']:.2f} CPU-s, Snakemake's benchmark: {sampled}")
    assert known <= usage["cpu_s"] <= 1.05 * known
    assert usage["children_cpu_s"] >= CHILD_BUSY_S
