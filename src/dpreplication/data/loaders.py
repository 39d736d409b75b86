"""Loaders that turn verified raw files into arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dpreplication.data.fetch import verified


def load_dpbench_histogram(path: str | Path, bins: int = 1024) -> np.ndarray:
    """Load a DPBench 1-D histogram (int64, length 4096) summed into ``bins`` adjacent groups.

    McKenna & Sheldon (2020) use ``bins = 1024``: ``x.reshape(1024, -1).sum(1)``. A file the
    catalogue names is verified against its SHA256 as it is read, in whatever folder it lies.
    """
    counts = np.load(verified(path), allow_pickle=False)
    if counts.ndim != 1 or counts.size % bins:
        raise ValueError(
            f"{path}: expected a 1-D histogram whose length is a multiple of {bins}, got shape {counts.shape}"
        )
    if not np.issubdtype(counts.dtype, np.integer) or counts.min() < 0:
        raise ValueError(f"{path}: expected non-negative integer counts, got dtype {counts.dtype}")
    return counts.reshape(bins, -1).sum(axis=1)
