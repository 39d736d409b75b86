"""Deterministic seeds: one independent stream per named experiment key.

Every random step of the workflow draws from ``generator(root_seed, *keys)``,
where ``root_seed`` comes from config and the keys name the paper, figure and
parameter (e.g. ``("permute_and_flip", "pmf_bars", "Q5", 1.0, "A1")``). The
stream depends only on the keys, not on the order in which jobs run, so a
single figure rerun alone reproduces the data of the full run.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key_word(key) -> int:
    """Return a stable 32-bit word for one key (``hash()`` is salted per process).

    Numbers are normalised to float, so ``1`` and ``1.0`` (YAML may give either) agree.
    """
    if isinstance(key, (int, float, np.integer, np.floating)) and not isinstance(key, bool):
        key = float(key)
    return int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:4], "little")


def seed_sequence(root_seed: int, *keys) -> np.random.SeedSequence:
    """``SeedSequence(root_seed)`` spawned along the path named by ``keys``."""
    return np.random.SeedSequence(root_seed, spawn_key=tuple(_key_word(k) for k in keys))


def generator(root_seed: int, *keys) -> np.random.Generator:
    """Return a PCG64 generator for the experiment named by ``keys``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(root_seed, *keys)))
