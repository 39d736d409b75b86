"""Memory of the DaRRM LP (:mod:`dpreplication.optimisation.gamma_lp`), predicted before building it.

The LP has one row per vertex multiset of F^K, ``N = C(K+V−1, V−1)`` rows for the ``V`` vertices
of F (4 at Δ = 0, 8 at Δ > 0; spec §1.4), on ``H = (K+1)/2`` columns, built from
``S = C(K+V−2, V−2)`` pmf states of ``P = K + 1`` cells. At Δ > 0 that is ``O(K⁷)``: K = 101 has
2.8e10 rows and 1.8e9 states (Δ = 0: 182,104 and 5,253): 2.9 TB of states alone, and about 19
CPU-hours per pass over the rows at the 4e7 pmf cells/s measured at K = 31, however it is chunked
(spec §1.4 pitfall 5: the authors stop at K ≈ 41). So the builders refuse it before allocating.
The estimate counts the float64/int64 arrays the code allocates (bytes; ``B ≤ N`` rows survive
the presolve, ``B = N`` unless told):

* vertex multisets: state pmfs ``2·8SP``, counts ``8S(V−2)``, row indices ``2·8N``; adding the
  last vertex holds its blocks and their concatenation (``4·8SP``), the row indices ``4·8N``;
* presolve: the kept rows ``8BH`` and one chunk of :data:`CHUNK_CELLS` pmf cells;
* cutting planes: ``rows @ x``, the excess and the sort (``4·8B``) and the active rows' LP;
* constraint matrix: the blocks, ``np.unique``'s copies and the CSR build (``52BH``);
* full LP's solve: the matrix (12 bytes a non-zero) and HiGHS, :data:`SOLVER_BYTES_PER_NONZERO`
  and :data:`SOLVER_BYTES_PER_ROW`, checked once the matrix's size is known.

Measured (peak RSS over the interpreter's, ε = 0.1): cutting planes at Δ = 1e-5, m = 10, K = 21:
0.25 GB, K = 31: 2.66 GB, for estimates of 0.27 and 2.83 GB at the measured kept fraction and 0.34
and 3.54 GB as the bound; the full LP at K = 201, Δ = 0, m = 10: 4.6 GB for a solve estimate of
5.9 GB.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from dpreplication.validation import positive

CHUNK_CELLS = 1 << 21
"""Pmf cells per presolve chunk (``VertexMultisets.chunks``)."""

CHUNK_BYTES_PER_CELL = 49
"""Bytes alive per pmf cell of a chunk: its ``α, α'`` and the previous chunk's (4·8), the index
(8 + 1 bool) and a fancy-index temporary (8)."""

SOLVER_BYTES_PER_NONZERO = 150
"""HiGHS through ``linprog`` (its CSC copy, presolve and simplex), per non-zero of the LP."""

SOLVER_BYTES_PER_ROW = 2000
"""HiGHS per row. With :data:`SOLVER_BYTES_PER_NONZERO`, fitted to the peak RSS of the full LP at
K = 51, 101, 201 (Δ = 0) and K = 21 (Δ = 1e-5), m ∈ {1, 3, 10}: within 0.94–1.27× of each."""

METHODS = ("cutting_planes", "constraint_matrix", "full")
"""What is estimated: :func:`~dpreplication.optimisation.gamma_lp.optimise_gamma_by_cutting_planes`,
:func:`~dpreplication.optimisation.gamma_lp_constraints.darrm_constraint_matrix`, and
:func:`~dpreplication.optimisation.gamma_lp.optimise_gamma` (that matrix and its solve)."""


class LPTooLargeError(ValueError, MemoryError):
    """The DaRRM LP's estimated memory exceeds the limit; raised before the memory is allocated."""


@dataclass(frozen=True)
class LPMemoryEstimate:
    """Predicted peak memory of one DaRRM LP call, by phase (bytes).

    Parameters
    ----------
    K : int
        Number of mechanisms.
    n_vertices : int
        Vertices of F: 4 (Δ = 0) or 8 (Δ > 0).
    n_states : int
        ``S = C(K+V−2, V−2)`` pmf states.
    n_rows : int
        ``N = C(K+V−1, V−1)`` vertex multisets (rows before the presolve).
    n_cols : int
        ``H = (K + 1)/2``.
    vertex_bytes : int
        Peak while the vertex multisets are built.
    presolve_bytes : int
        Peak while the rows are folded and presolved.
    solve_bytes : int
        Peak while the LP(s) are built and solved.
    """

    K: int
    n_vertices: int
    n_states: int
    n_rows: int
    n_cols: int
    vertex_bytes: int
    presolve_bytes: int
    solve_bytes: int

    @property
    def peak_bytes(self) -> int:
        """The largest phase."""
        return max(self.vertex_bytes, self.presolve_bytes, self.solve_bytes)

    @property
    def peak_gb(self) -> float:
        """:attr:`peak_bytes` in GB (1e9 bytes)."""
        return self.peak_bytes / 1e9


def estimate_lp_memory(
    K: int,
    Delta: float,
    method: str = "cutting_planes",
    rows_per_round: int | None = None,
    max_rounds: int = 100,
    kept_fraction: float = 1.0,
    lp_shape: tuple[int, int] | None = None,
) -> LPMemoryEstimate:
    """Peak bytes of the DaRRM LP for ``K`` mechanisms, by the array counts of the module docstring.

    Parameters
    ----------
    K : int, positive and odd
        Number of mechanisms.
    Delta : float, ≥ 0
        Δ of each mechanism (only whether ``Δ > 0`` matters).
    method : str
        One of :data:`METHODS`.
    rows_per_round : int, optional
        Of the cutting planes (default ``K + 1``); their LP has at most
        ``rows_per_round · (max_rounds + 1)`` rows.
    max_rounds : int
        Of the cutting planes.
    kept_fraction : float, in [0, 1]
        ``B/N``, the fraction of rows the presolve keeps: 1 (the default) bounds every case, a
        measured fraction predicts one.
    lp_shape : tuple of int, optional
        ``(rows, nnz)`` of the full LP's built matrix: ``solve_bytes`` is then its solve alone
        (default: the build and the solve of ``(B, BH)``).

    Returns
    -------
    LPMemoryEstimate
        The estimate by phase.

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`METHODS`.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    V = 8 if Delta > 0 else 4
    F, P, H = V - 2, K + 1, (K + 1) // 2
    S, S_prev, N = math.comb(K + F, F), math.comb(K + F - 1, F - 1), math.comb(K + V - 1, V - 1)
    B = math.ceil(kept_fraction * N)
    family = 8 * (2 * S * P + S * F + 2 * N)
    vertex = 8 * max(4 * S * P + 2 * S_prev * P + 2 * S * F + 2 * S, 2 * S * P + S * F + 4 * N)
    chunk = CHUNK_BYTES_PER_CELL * min(N * P, max(P, CHUNK_CELLS - CHUNK_CELLS % P))
    presolve = family + 8 * B * H + chunk
    if method == "cutting_planes":
        active = min(B, (rows_per_round or K + 1) * (max_rounds + 1))
        lp = active * (SOLVER_BYTES_PER_ROW + (44 + SOLVER_BYTES_PER_NONZERO) * H)
        solve = family + 8 * B * H + 4 * 8 * B + lp
    else:  # the blocks stay alive through the concatenation, np.unique and the CSR build
        solve = family + 8 * B * H + max(3 * 8 * B * H, 8 * B * H + 36 * B * H)
        if method == "full":  # with lp_shape, the matrix is built: only its solve is ahead
            rows, nnz = lp_shape or (B, B * H)
            solver = family + (12 + SOLVER_BYTES_PER_NONZERO) * nnz + SOLVER_BYTES_PER_ROW * rows
            solve = solver if lp_shape else max(solve, solver)
    return LPMemoryEstimate(K, V, S, N, H, vertex, presolve, solve)


def default_memory_limit_gb() -> float:
    """Return the machine's physical memory, or the address space ``RLIMIT_AS`` leaves if less, in GB.

    The estimate is of resident memory; HiGHS reserves about twice its resident memory in address
    space (full LP at K = 201, Δ = 0: 9.1 GB for 4.6 GB), so under ``RLIMIT_AS`` the full LP's
    solve can still fail with ``MemoryError`` within the limit. The cutting planes reserve what they use.
    """
    limit = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as statm:
            in_use = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError):  # no RLIMIT_AS (Windows) or no /proc (macOS): physical memory
        return limit / 1e9
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft - in_use)
    return limit / 1e9


def largest_ensemble_within(limit_gb: float, Delta: float, method: str = "cutting_planes") -> int:
    """Largest odd ``K`` whose :func:`estimate_lp_memory` bound fits ``limit_gb`` (0 if not even K = 1)."""
    K = 1
    while K < 100_000 and estimate_lp_memory(K, Delta, method).peak_gb <= limit_gb:
        K += 2
    return max(K - 2, 0)


def check_lp_memory(
    K: int,
    Delta: float,
    method: str,
    max_memory_gb: float | None = None,
    **estimate_options,
) -> LPMemoryEstimate:
    """Return :func:`estimate_lp_memory`, or raise :class:`LPTooLargeError` if it exceeds the limit.

    Parameters
    ----------
    K, Delta, method
        As :func:`estimate_lp_memory`.
    max_memory_gb : float, optional
        The limit in GB (default :func:`default_memory_limit_gb`; ``math.inf``: no limit).
    **estimate_options
        Passed to :func:`estimate_lp_memory`.

    Returns
    -------
    LPMemoryEstimate
        The estimate, within the limit.

    Raises
    ------
    ValueError
        If ``max_memory_gb`` is not positive (NaN included).
    LPTooLargeError
        If the estimated peak exceeds ``max_memory_gb``; the message names both and a way out.
    """
    limit = (
        default_memory_limit_gb()
        if max_memory_gb is None
        else positive("max_memory_gb", max_memory_gb, allow_infinity=True)
    )
    estimate = estimate_lp_memory(K, Delta, method, **estimate_options)
    if not estimate.peak_gb <= limit:
        what = "its solve (HiGHS)" if estimate_options.get("lp_shape") else "an upper bound: no row presolved away"
        raise LPTooLargeError(
            f"DaRRM LP ({method.replace('_', ' ')}) K={K} Delta={Delta}: {estimate.n_rows:,} vertex multisets "
            f"x {estimate.n_cols} columns need an estimated {estimate.peak_gb:.3g} GB ({what}), above the "
            f"limit of {limit:.3g} GB. Use K <= {largest_ensemble_within(limit, Delta, method)} at this Delta, "
            f"Delta = 0 (4 vertices of F, C(K+3, 3) rows), or raise max_memory_gb."
        )
    return estimate
