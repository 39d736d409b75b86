"""Cost of DaRRM's γ_opt linear program (run with `make bench`; never part of `make test`).

K = 101 (the paper's F7/F8, 182,104 vertex multisets) and K = 201 (issue goal: ≤ 60 s; about
1.4 million multisets and 5 GB). The split between building the constraint rows and solving
goes to extra_info.
"""

import pytest

from dpreplication.optimisation.gamma_lp import optimise_gamma


@pytest.mark.parametrize("K", [101, 201])
def test_gamma_lp(benchmark, K):
    result = benchmark.pedantic(optimise_gamma, args=(K, 10, 0.1), rounds=1, iterations=1)
    benchmark.extra_info.update(
        build_seconds=result.build_seconds,
        solve_seconds=result.solve_seconds,
        rows=result.n_rows,
        vertex_multisets=result.n_vertex_multisets,
    )
