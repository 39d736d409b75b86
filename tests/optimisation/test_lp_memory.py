"""Tests of :mod:`dpreplication.optimisation.lp_memory`, the DaRRM LP's memory predicted before it is
built. Its docstrings state that the estimate counts the arrays the builders allocate: with every row
kept it bounds the peak, at the kept fraction it predicts it (checked here against the peak of a
fresh interpreter, traced by ``tracemalloc`` and as resident memory); and that a request above the
limit is refused with :class:`LPTooLargeError` before anything is allocated (checked under a small
address-space limit), its message naming the estimate, the limit and a way out."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import textwrap

import pytest

from dpreplication.mechanisms import feasible_region as FR
from dpreplication.optimisation import gamma_lp as LP
from dpreplication.optimisation import gamma_lp_constraints as LPC
from dpreplication.optimisation import lp_memory as LM

PREDICTION_FACTOR = 1.25
"""The estimate at the measured kept fraction lies within this factor of the measured peak (measured:
0.90–1.00 for the cutting planes below, 1.08 for the full LP; 0.91–1.07 at K = 21, 31, 51, 101)."""


def run_fresh(body: str, timeout: float = 60) -> dict:
    """Run ``body`` in a fresh interpreter and return the JSON object it prints last."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)], capture_output=True, text=True, timeout=timeout, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


MEASURE = """
    import json, tracemalloc
    from dpreplication.optimisation import gamma_lp as LP

    def peak_rss():  # VmHWM: ru_maxrss after exec can still hold the (v)forking parent's peak
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM"))

    method = getattr(LP, {method!r})
    method(3, 1, 0.1)  # loads what the first solve loads, before the baseline
    base = peak_rss()
    tracemalloc.start()
    r = method({K}, {m}, 0.1, {Delta}, {Delta})
    traced = tracemalloc.get_traced_memory()[1]
    rss = peak_rss() - base
    kept = 1 - r.n_redundant_rows / r.n_vertex_multisets
    print(json.dumps(dict(traced=traced, rss=rss, kept=kept, rows=r.n_rows, nnz=r.nnz)))
"""


def test_the_estimate_bounds_and_predicts_the_cutting_planes_peak():
    """K = 21, Δ = 1e-5, m = 1 (1.2 million vertex multisets, 31 % kept): peak 0.27 GB."""
    measured = run_fresh(MEASURE.format(method="optimise_gamma_by_cutting_planes", K=21, m=1, Delta=1e-5))
    bound = LM.estimate_lp_memory(21, 1e-5).peak_bytes
    predicted = LM.estimate_lp_memory(21, 1e-5, kept_fraction=measured["kept"]).peak_bytes
    assert bound >= max(measured["traced"], measured["rss"]), (bound, measured)
    for peak in (measured["traced"], measured["rss"]):
        assert 1 / PREDICTION_FACTOR <= predicted / peak <= PREDICTION_FACTOR, (predicted, measured)


def test_the_estimate_predicts_the_full_lps_peak_with_its_solver():
    """K = 101, Δ = 0, m = 10: HiGHS dominates (peak 0.33 GB); the solve estimate knows the matrix's size."""
    measured = run_fresh(MEASURE.format(method="optimise_gamma", K=101, m=10, Delta=0.0))
    predicted = LM.estimate_lp_memory(
        101, 0.0, "full", kept_fraction=measured["kept"], lp_shape=(measured["rows"], measured["nnz"])
    ).peak_bytes
    assert 1 / PREDICTION_FACTOR <= predicted / measured["rss"] <= PREDICTION_FACTOR, (predicted, measured)


def test_a_request_beyond_the_address_space_is_refused_before_allocating():
    """K = 101 and 201 at Δ = 1e-5 with 1 GiB of address space left: the refusal (not numpy's
    MemoryError, not the kernel) comes back with the estimate and that limit, and the resident
    memory does not grow."""
    result = run_fresh("""
        import json, resource
        from dpreplication.optimisation import gamma_lp as LP
        with open("/proc/self/statm") as statm:
            virtual = int(statm.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (virtual + 2**30, resource.RLIM_INFINITY))
        def peak_rss():
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))

        base = peak_rss()
        messages = []
        for K in (101, 201):
            for method in (LP.optimise_gamma_by_cutting_planes, LP.optimise_gamma):
                try:
                    method(K, 10, 0.1, 1e-5, 1e-4)
                except LP.LPTooLargeError as error:
                    messages.append(str(error))
        grown = peak_rss() - base
        print(json.dumps(dict(messages=messages, grown_kb=grown)))
    """)
    assert len(result["messages"]) == 4 and result["grown_kb"] < 50 * 1024
    cutting_planes_101 = result["messages"][0]
    assert f"{LM.estimate_lp_memory(101, 1e-5).peak_gb:.3g} GB" in cutting_planes_101
    limit = float(re.search(r"above the limit of ([0-9.]+) GB", cutting_planes_101)[1])
    assert 0.9 < limit <= 2**30 / 1e9  # the address space left: 1 GiB less what the refusal took
    assert "27,883,218,168 vertex multisets" in cutting_planes_101
    assert "Delta = 0" in cutting_planes_101 and "max_memory_gb" in cutting_planes_101


def test_every_builder_refuses_above_max_memory_gb_and_names_a_k_that_fits():
    fits = LM.largest_ensemble_within(0.1, 1e-5)
    assert LM.estimate_lp_memory(fits, 1e-5).peak_gb <= 0.1 < LM.estimate_lp_memory(fits + 2, 1e-5).peak_gb
    calls = [
        (LP.optimise_gamma_by_cutting_planes, "cutting_planes"),
        (LP.optimise_gamma, "constraint_matrix"),  # its build is checked first
        (LPC.darrm_constraint_matrix, "constraint_matrix"),
    ]
    for call, method in calls:
        with pytest.raises(LP.LPTooLargeError, match=r"above the limit of 0.1 GB") as error:
            call(21, 3, 0.1, 1e-5, max_memory_gb=0.1)
        assert isinstance(error.value, ValueError) and isinstance(error.value, MemoryError)
        assert f"Use K <= {LM.largest_ensemble_within(0.1, 1e-5, method)} at this Delta" in str(error.value)


def test_the_full_lp_checks_its_solve_once_the_matrix_is_built():
    """K = 21, Δ = 1e-5, m = 1: the build fits 1 GB (bound 0.82 GB), HiGHS on its 361,454 rows would not."""
    build = LM.estimate_lp_memory(21, 1e-5, "constraint_matrix").peak_gb
    assert build < 1.0
    with pytest.raises(LP.LPTooLargeError, match=r"its solve \(HiGHS\)"):
        LP.optimise_gamma(21, 1, 0.1, 1e-5, 1e-5, max_memory_gb=1.0)


@pytest.mark.parametrize("K", [1, 11, 21])
@pytest.mark.parametrize("Delta", [0.0, 1e-5])
def test_the_estimate_counts_the_vertex_multisets(K, Delta):
    estimate = LM.estimate_lp_memory(K, Delta)
    assert estimate.n_rows == FR.number_of_vertex_multisets(K, Delta) == FR.vertex_multisets(K, 0.1, Delta).n_rows
    assert estimate.n_vertices == len(FR.feasible_region_vertices(0.1, Delta)) and estimate.n_cols == (K + 1) // 2
    assert LM.estimate_lp_memory(K, Delta, kept_fraction=0.5).peak_bytes <= estimate.peak_bytes


def test_the_estimate_grows_as_k_to_the_seventh_at_positive_delta():
    """C(K+7, 7) rows: K = 101 at Δ > 0 needs about 10⁵ times K = 101 at Δ = 0."""
    assert LM.estimate_lp_memory(101, 1e-5).n_rows == math.comb(108, 7) == 27_883_218_168
    assert LM.estimate_lp_memory(101, 1e-5).peak_gb > 1e4 > 1 > LM.estimate_lp_memory(101, 0.0).peak_gb
    with pytest.raises(ValueError, match="method must be one of"):
        LM.estimate_lp_memory(11, 0.0, "dense")


def test_the_limit_must_be_positive_and_infinity_never_refuses():
    with pytest.raises(ValueError, match="max_memory_gb must be positive"):
        LM.check_lp_memory(11, 0.0, "cutting_planes", math.nan)
    assert LM.check_lp_memory(201, 1e-5, "cutting_planes", math.inf).n_rows == math.comb(208, 7)
    assert LM.largest_ensemble_within(1e-9, 0.0) == 0
