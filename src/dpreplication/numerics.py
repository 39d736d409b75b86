"""Small numerical building blocks shared by every mechanism.

Everything here is deterministic and free of randomness: quadrature rules,
log-space helpers, and the chunking used to keep vectorised samplers within
a fixed memory budget.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


@lru_cache(maxsize=64)
def gauss_legendre_unit(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [0, 1].

    An ``n``-node rule integrates polynomials of degree ``2n - 1`` exactly.
    Cached because ``leggauss`` solves an eigenproblem (slow for n ≳ 500).
    The returned arrays are read-only so the cache cannot be corrupted.
    """
    if n_nodes < 1:
        raise ValueError(f"n_nodes must be positive, got {n_nodes}")
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    nodes = 0.5 * (nodes + 1.0)
    weights = 0.5 * weights
    nodes.setflags(write=False)
    weights.setflags(write=False)
    return nodes, weights


def gauss_legendre_interval(lo: np.ndarray, hi: np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of an ``n``-node rule on each interval ``[lo_i, hi_i]``.

    Returns flat arrays of length ``len(lo) * n_nodes``.
    """
    unit_nodes, unit_weights = gauss_legendre_unit(n_nodes)
    lo = np.asarray(lo, dtype=float)[:, None]
    width = np.asarray(hi, dtype=float)[:, None] - lo
    return (lo + width * unit_nodes).ravel(), (width * unit_weights).ravel()


def row_chunks(n_rows: int, row_width: int, max_cells: int = 1 << 22):
    """Yield ``(start, stop)`` row ranges so that each chunk has ≤ ``max_cells`` cells."""
    step = max(1, max_cells // max(1, row_width))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def log1mexp(x: np.ndarray) -> np.ndarray:
    """Stable ``log(1 - exp(x))`` for ``x < 0`` (Mächler 2012)."""
    x = np.asarray(x, dtype=float)
    return np.where(x > -np.log(2.0), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))
