"""Cost of DaRRM's γ_opt linear program (run with `make bench`; never part of `make test`).

K = 101 (the paper's F7/F8, 182,104 vertex multisets) and K = 201 (about 1.4 million multisets):
the full presolved LP (:func:`optimise_gamma`; at K = 201 about 57 CPU-s and 4.5 GB) and the
cutting planes (:func:`optimise_gamma_by_cutting_planes`; the issue's goal at K = 201: ≤ 1 GB).
The split between building the constraint rows and solving goes to extra_info; the peak memory of
the cutting planes at K = 201 is measured in a fresh process.

At Δ > 0 the LP has C(K+7, 7) rows (2.8e10 at K = 101): unguarded, K = 101 grew to 22.6 GB and
was killed. Each case runs in a fresh interpreter under an 8 GB address-space limit and must come
back refused by the memory estimate at once (measured: 0.6 CPU-s, the interpreter's 0.1 GB, where
the unguarded code took 19 CPU-s and 7.4 GB to reach numpy's MemoryError); Δ = 0 beside it.
"""

import json
import resource
import subprocess
import sys

import pytest

from dpreplication.optimisation.gamma_lp import optimise_gamma, optimise_gamma_by_cutting_planes

PEAK_MEMORY_GOAL_MB = 1024
ADDRESS_SPACE_LIMIT = 8 * 10**9

CHILD = """
import json, sys
from dpreplication.mechanisms.majority import composed_delta
from dpreplication.optimisation import gamma_lp
K, Delta, method = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
out = {}
try:
    result = getattr(gamma_lp, method)(K, 10, 0.1, Delta, composed_delta(10, Delta))
    out.update(refused=False, objective=result.objective, rows=result.n_rows)
except gamma_lp.LPTooLargeError as error:
    out.update(refused=True, message=str(error))
with open("/proc/self/status") as status:  # VmHWM: ru_maxrss after exec can hold the forking parent's peak
    out["peak_rss_mb"] = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM"))
print(json.dumps(out))
"""


def run_fresh(K: int, Delta: float, method: str = "optimise_gamma_by_cutting_planes") -> dict:
    """Run ``method(K, 10, 0.1, Δ, δ = 1 − (1 − Δ)^10)`` in a fresh interpreter under the address-space
    limit; add its CPU-s and ``ru_maxrss`` (``RUSAGE_CHILDREN``) to what it prints."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    args = [sys.executable, "-c", CHILD, str(K), str(Delta), method]
    done = subprocess.run(args, check=True, capture_output=True, text=True, preexec_fn=limit, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = json.loads(done.stdout.splitlines()[-1])
    out["cpu_seconds"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    out["children_ru_maxrss_mb"] = after.ru_maxrss / 1024  # the largest child so far (and its parent's peak)
    return out


@pytest.mark.parametrize("method", [optimise_gamma, optimise_gamma_by_cutting_planes])
@pytest.mark.parametrize("K", [101, 201])
def test_gamma_lp(benchmark, K, method):
    result = benchmark.pedantic(method, args=(K, 10, 0.1), rounds=1, iterations=1)
    benchmark.extra_info.update(
        build_seconds=result.build_seconds,
        solve_seconds=result.solve_seconds,
        rows=result.n_rows,
        vertex_multisets=result.n_vertex_multisets,
    )


@pytest.mark.parametrize("Delta", [0.0, 1e-5])
@pytest.mark.parametrize("K", [101, 201])
def test_cutting_planes_under_an_address_space_limit(benchmark, K, Delta):
    """Δ > 0 is refused with the estimate before anything is allocated; Δ = 0 is solved (K = 201: 0.65 GB)."""
    out = benchmark.pedantic(run_fresh, args=(K, Delta), rounds=1, iterations=1)
    benchmark.extra_info.update(out)
    print(f"K = {K}, Delta = {Delta}: {out['cpu_seconds']:.2f} CPU-s, peak {out['peak_rss_mb']:.0f} MB, {out}")
    assert out["refused"] == (Delta > 0)
    if Delta > 0:
        assert "GB" in out["message"] and out["peak_rss_mb"] < 300


def test_cutting_planes_at_k201_fit_in_a_gigabyte():
    """Peak resident memory of a fresh interpreter that solves K = 201, m = 10 by cutting planes."""
    peak_mb = run_fresh(201, 0.0)["peak_rss_mb"]
    print(f"K = 201 by cutting planes: peak {peak_mb:.0f} MB")
    assert peak_mb <= PEAK_MEMORY_GOAL_MB
