"""What the privacy ledger costs the jobs (issue 34: at most 1 % of job CPU; `make bench`).

Each release of a PrivGene job runs in its own ledger: every draw records one event (``draws`` in
the job's rows) and the job composes the ledger once (``Ledger.summary``). This benchmark times
one record and one summary here, multiplies them by the releases and draws of a finished run's job
rows (``results/<tree>/work/privgene``), and divides by the CPU those jobs spent (their Snakemake
``benchmark:`` records, ``benchmarks/records/<tree>/privgene``). Select the run with
``DPREPLICATION_BENCHMARK_TREE`` (default ``default``); without its records the test skips.

DaRRM's query sets: one accuracy table timed with its ledgers and without (each query set's
ledger replaced by an empty context), against the CPU of every DaRRM job of the run.
"""

import contextlib
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpreplication.accounting import ledger
from dpreplication.mechanisms.selection_sampling import sample_report_noisy_max

ROOT = Path(__file__).resolve().parents[1]
TREE = os.environ.get("DPREPLICATION_BENCHMARK_TREE", "default")
ROWS = ROOT / "results" / TREE / "work" / "privgene"
RECORDS = ROOT / "benchmarks" / "records" / TREE / "privgene"
DARRM_VOTES = ROOT / "results" / TREE / "work" / "darrm" / "prediction"
DARRM_RECORDS = ROOT / "benchmarks" / "records" / TREE / "darrm"
BUDGET = 0.01
RELEASE_KEYS = ("dataset", "task", "method", "c", "k", "C", "paper_r", "repetition", "fold", "epsilon")
"""Columns that name one release in a job's rows (a trace repeats them per iteration)."""


def per_call_seconds(call, calls: int = 2000, repeat: int = 5) -> float:
    """The fastest of ``repeat`` CPU times of ``calls`` calls, per call."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(calls):
            call()
        times.append(time.process_time() - start)
    return min(times) / calls


def record_cost() -> float:
    """CPU seconds a draw's record adds: a one-draw selection inside a ledger less the same outside."""
    rng = np.random.default_rng(0)
    draw = lambda: sample_report_noisy_max([0.0, 1.0], 0.1, 1.0, 1, rng, "gumbel")  # noqa: E731
    bare = per_call_seconds(draw)
    with ledger.spending():
        recorded = per_call_seconds(draw)
    return max(recorded - bare, 0.0)


def summary_cost(draws: int) -> float:
    """CPU seconds of composing a ledger of ``draws`` selection records (``Ledger.summary``)."""
    with ledger.spending() as spent:
        sample_report_noisy_max([0.0, 1.0], 0.1, 1.0, 1, np.random.default_rng(0), "gumbel")
    spent.entries *= max(draws, 1)
    return per_call_seconds(spent.summary, calls=20)


def releases_and_draws() -> pd.DataFrame:
    """One row per release of the run's PrivGene jobs, with its ``draws``."""
    frames = []
    for path in sorted(ROWS.rglob("*.csv")):
        rows = pd.read_csv(path)
        if "draws" in rows:
            frames.append(rows.drop_duplicates([c for c in RELEASE_KEYS if c in rows])[["draws"]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({"draws": []})


def test_the_ledger_costs_under_one_percent_of_job_cpu(benchmark):
    records = sorted(RECORDS.rglob("*.tsv"))
    releases = releases_and_draws()
    if not records or releases.empty:
        pytest.skip(
            f"no finished {TREE} run with ledgers here (run make replicate, or set DPREPLICATION_BENCHMARK_TREE)"
        )
    job_cpu = sum(pd.read_csv(path, sep="\t").cpu_time.sum() for path in records)
    median_draws = int(releases.draws.median())
    cost = releases.draws.sum() * record_cost() + len(releases) * summary_cost(median_draws)
    benchmark.pedantic(summary_cost, args=(median_draws,), rounds=1, iterations=1)
    benchmark.extra_info.update(
        {
            "releases": len(releases),
            "draws": int(releases.draws.sum()),
            "job_cpu_seconds": float(job_cpu),
            "ledger_cpu_seconds": cost,
            "share_of_job_cpu": cost / job_cpu,
        }  # fmt: skip
    )
    assert cost / job_cpu <= BUDGET, f"the ledger costs {cost / job_cpu:.2%} of the PrivGene jobs' CPU"


class NoLedger:
    """What :func:`~dpreplication.replications.darrm.prediction.simulate_queries` reads from a ledger, empty."""

    entries = [ledger.Entry("none", None, 1, 0.0, 0.0)]

    def summary(self) -> dict:
        return dict.fromkeys(ledger.LEDGER_COLUMNS, 0)


@contextlib.contextmanager
def no_ledger(*args, **kwargs):
    yield NoLedger()


def test_darrm_query_ledgers_cost_under_one_percent_of_darrm_job_cpu(benchmark, monkeypatch):
    from dpreplication.accounting import events
    from dpreplication.pipeline.config import profile_config
    from dpreplication.replications.darrm import prediction

    records = sorted(DARRM_RECORDS.rglob("*.tsv"))
    files = {
        d: {k: DARRM_VOTES / f"{d}_{k}_votes.npz" for k in ("private", "nonprivate")}
        for d in ("mnist", "fashion_mnist")
    }
    if not records or not all(path.is_file() for paths in files.values() for path in paths.values()):
        pytest.skip(f"no finished {TREE} run with DaRRM votes here (run make replicate)")
    config = profile_config("quick" if TREE == "quick" else "default", ROOT)["darrm"]
    settings = config["private_prediction"]
    votes = prediction.read_votes(files)

    def table() -> float:
        events._majority_vote_epsilon.cache_clear()  # a job computes each majority vote's ε once
        events._gaussian_epsilon.cache_clear()
        start = time.process_time()
        prediction.accuracy_table(votes, {}, settings, seed=0, solver="highs")
        return time.process_time() - start

    table()  # γ_opt's LPs are cached by the first call, as in a job
    recorded = min(table() for _ in range(5))
    monkeypatch.setattr(prediction, "query_set_spending", no_ledger)
    bare = min(table() for _ in range(5))
    job_cpu = sum(pd.read_csv(path, sep="\t").cpu_time.sum() for path in records)
    # the pipeline's table, and the best configuration's: one dataset, once per seed replicate
    tables = 1 + config["teacher_ablation"]["seeds"] / len(settings["datasets"])
    cost = tables * max(recorded - bare, 0.0)
    benchmark.pedantic(table, rounds=1, iterations=1)
    benchmark.extra_info.update({"table_cpu_seconds": recorded, "ledger_cpu_seconds": cost,
                                 "darrm_job_cpu_seconds": float(job_cpu), "share_of_job_cpu": cost / job_cpu})  # fmt: skip
    assert cost / job_cpu <= BUDGET, f"DaRRM's query ledgers cost {cost / job_cpu:.2%} of its jobs' CPU"
