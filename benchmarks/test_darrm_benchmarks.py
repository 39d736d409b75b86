"""Cost of DaRRM's γ_opt linear program (run with `make bench`; never part of `make test`).

K = 101 (the paper's F7/F8, 182,104 vertex multisets) and K = 201 (about 1.4 million multisets):
the full presolved LP (:func:`optimise_gamma`; at K = 201 about 57 CPU-s and 4.5 GB) and the
cutting planes (:func:`optimise_gamma_by_cutting_planes`; the issue's goal at K = 201: ≤ 1 GB).
The split between building the constraint rows and solving goes to extra_info; the peak memory of
the cutting planes at K = 201 is measured in a fresh process.
"""

import subprocess
import sys

import pytest

from dpreplication.optimisation.gamma_lp import optimise_gamma, optimise_gamma_by_cutting_planes

PEAK_MEMORY_GOAL_MB = 1024


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


def test_cutting_planes_at_k201_fit_in_a_gigabyte():
    """Peak resident memory of a fresh interpreter that solves K = 201, m = 10 by cutting planes."""
    code = (
        "import resource\n"
        "from dpreplication.optimisation.gamma_lp import optimise_gamma_by_cutting_planes\n"
        "optimise_gamma_by_cutting_planes(201, 10, 0.1)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    peak_mb = (
        int(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout) / 1024
    )
    print(f"K = 201 by cutting planes: peak {peak_mb:.0f} MB")
    assert peak_mb <= PEAK_MEMORY_GOAL_MB
