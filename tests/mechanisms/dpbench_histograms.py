"""DPBench histograms from the offline data mirror, shared by ``test_selection.py`` and
``test_quality.py`` of this folder: the calling test skips when the mirror lacks them."""

import os
from pathlib import Path

import pytest

from dpreplication.data import load_dpbench_histogram


def dpbench_histogram(name):
    mirror = os.environ.get("DPREPLICATION_DATA_MIRROR")
    path = Path(mirror or "") / "dpbench_1d" / f"{name}.n4096.npy"
    if not mirror or not path.is_file():
        pytest.skip("DPBench data not available (set DPREPLICATION_DATA_MIRROR)")
    return load_dpbench_histogram(path)
