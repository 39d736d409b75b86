"""Test-wide settings: the workflow's job environment (single-threaded BLAS, one instruction set:
bit-stable numbers) and the offline data mirror."""

import os
from pathlib import Path

import pytest

from dpreplication.workflow_config import JOB_ENVIRONMENT

for variable, value in JOB_ENVIRONMENT.items():
    os.environ.setdefault(variable, value)

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
