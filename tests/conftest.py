"""Test-wide settings: the workflow's job environment (single-threaded BLAS, one instruction set:
bit-stable numbers) and the offline data mirror."""

import os
from pathlib import Path

import pytest

from dpreplication.pipeline.instruction_sets import apply_job_environment

apply_job_environment(os.environ)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
if "DPREPLICATION_DATA_MIRROR" not in os.environ and SHARED_DATA.is_dir():
    os.environ["DPREPLICATION_DATA_MIRROR"] = str(SHARED_DATA)


@pytest.fixture
def dp_sgd():
    """torch, for tests that train with DP-SGD: skips, naming the absent one, unless both torch and
    Opacus (extra 'learning') are installed."""
    torch = pytest.importorskip("torch", reason="DP-SGD teachers need torch (extra 'learning')")
    pytest.importorskip("opacus", reason="DP-SGD teachers need Opacus (extra 'learning')")
    return torch


SLOWEST_FIRST = (
    "tests/test_drift.py::",
    "tests/test_cluster.py::",
    "tests/test_instruction_sets.py::",
    "tests/test_faults.py::",
    "tests/test_mutants.py::",
)
"""The modules of the longest tests come first: the quick-profile run (about 7 minutes in CI), the
SLURM run (3 minutes, mostly waiting on the scheduler, so it goes beside the quick run), the trained
jobs under another instruction set (3 minutes), the fault runs (5 minutes) and the mutants (4
minutes). `make test` gives each module to one pytest-xdist worker (``--dist loadfile``) in this
order, so the long ones overlap and the short ones fill the gaps.

A worker takes its next module when two tests of its current one are left. The mutants' module has
two tests, so its worker queues a module behind the mutants at once: the faults go before it, or
they queued there and ran alone for the last 2.5 minutes (1,003 s against 900 s of CPU on 2 cores)."""


def pytest_collection_modifyitems(items):
    def rank(item) -> int:
        return next((i for i, prefix in enumerate(SLOWEST_FIRST) if item.nodeid.startswith(prefix)), len(SLOWEST_FIRST))

    items.sort(key=rank)
