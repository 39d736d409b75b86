"""DaRRM: the numbers behind the spec's verified tables (§5, §6), for the cases the registry names.

The claim registry ``workflow/claims/darrm.yaml`` is the one home of the cases: every claim on
the table ``verified_numbers`` selects its row by ``quantity``, ``setting`` and the typed columns
``K, m, eps, Delta, l``, and :func:`verified_numbers` computes exactly those rows (a
:class:`Case` each), nothing else. The registry states what a number should be; nothing here does.

Quantities: γ values (``gamma_<series>(l)``, the jagged γ_opt at K = 101), Monte-Carlo ensemble
errors (``E[<series>] under <prior>``), the LP objective, and the lemma checks of
:mod:`dpreplication.replications.darrm.lemmas`. Monte-Carlo errors draw from
``seeding.generator(seed, "darrm", "verified", setting, prior)``: the cases of one setting and
prior share their draws (common random numbers).
"""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass, fields

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.mechanisms import majority as mj
from dpreplication.mechanisms import majority_utility
from dpreplication.optimisation.gamma_lp import optimise_gamma_cached
from dpreplication.replications.darrm import lemmas
from dpreplication.replications.darrm.analytic import PAPER, series_gamma

__all__ = ["VERIFIED_COLUMNS", "Case", "verified_numbers"]


@dataclass(frozen=True)
class Case:
    """One row of the verified table: a quantity, the spec's setting it belongs to, its parameters.

    ``K`` ensemble size, ``m`` budget multiple, ``eps`` each mechanism's ε, ``Delta`` its δ (Δ),
    ``l`` the count of ones γ is read at; a parameter the quantity does not take is None (an
    empty cell). The setting names the spec's table and keys the Monte-Carlo draws.
    """

    quantity: str
    setting: str = ""
    K: int | None = None
    m: int | None = None
    eps: float | None = None
    Delta: float | None = None
    l: int | None = None

    @classmethod
    def from_select(cls, select: dict) -> Case:
        """Read a registry claim's ``select`` into a case; an unknown column is a ``ValueError``."""
        names = [field.name for field in fields(cls)]
        unknown = sorted(set(select) - set(names))
        if unknown:
            raise ValueError(f"verified case {select}: unknown columns {unknown}; a case has {names}")
        kinds = {"K": int, "m": int, "l": int, "eps": float, "Delta": float, "quantity": str, "setting": str}
        return cls(**{name: kinds[name](value) for name, value in select.items()})


VERIFIED_COLUMNS = [field.name for field in fields(Case)] + ["samples", "value"]
"""The verified table: a case's columns, the random draws or points behind the value (0: exact), the value."""


@dataclass(frozen=True)
class Run:
    """What every case of one run shares: the seed, the LP solver and the Monte-Carlo sizes."""

    seed: int
    solver: str
    draws_small: int
    draws_large: int
    points: int

    def draws(self, K: int) -> int:
        """Monte-Carlo draws of an ensemble error: fewer at K = 101, where each draw costs more."""
        return self.draws_small if K <= 11 else self.draws_large


def gamma_value(case: Case, run: Run, series: str) -> float:
    """γ_series(l) at budget (mε, δ), δ = 1 − (1 − Δ)^m; ``opt`` maximises the T_U objective (q̄ = 0.75)."""
    Delta = case.Delta or 0.0
    gamma = series_gamma(series, case.K, case.m, case.eps, Delta, mj.composed_delta(case.m, Delta), solver=run.solver)
    return float(gamma[case.l])


def jagged_zero(case: Case, run: Run) -> tuple[np.ndarray, int]:
    """γ_opt of the K = 101, m = 10 solution and the l in 51..60 where it drops to its minimum (zero)."""
    gamma = series_gamma("opt", case.K, case.m, case.eps, solver=run.solver)
    return gamma, 51 + int(np.argmin(gamma[51:61]))


def jagged_minimum(case, run):
    """min_{l=51..60} γ_opt(l): the zero of the jagged γ."""
    gamma, zero = jagged_zero(case, run)
    return gamma[zero], 0


def jagged_neighbour(case, run):
    """Return the larger of γ_opt at l − 1 and l + 1 next to that zero."""
    gamma, zero = jagged_zero(case, run)
    return max(gamma[zero - 1], gamma[zero + 1]), 0


def lp_objective(case, run):
    """Solve for the γ LP's optimal objective (spec §6.5) under T_U (q̄ = 0.75)."""
    return optimise_gamma_cached(case.K, case.m, case.eps, solver=run.solver).objective, 0


QUANTITIES = {
    "max |h_m(l) - enumerated subsampling probability|": lemmas.subsampling_gap,
    "gamma_const": lemmas.gamma_constant,
    "|gamma_const - tanh(m eps/2)/tanh(K eps/2)|": lemmas.tanh_gap,
    "vertex privacy violation of gamma_const": lemmas.constant_vertex_violation,
    "random-point privacy violation of gamma_const": lemmas.constant_random_point_violation,
    "effective budget m_eff of gamma_const (RR is loose)": lemmas.constant_effective_budget,
    "random-point violation minus vertex violation of gamma_opt": lemmas.vertex_reduction_gap,
    "delta excess of gamma = 1 (max Pr gap)": lemmas.majority_delta_excess,
    "effective budget m_eff of gamma = 1": lemmas.majority_effective_budget,
    "max |gamma_opt - 1|": lemmas.optimum_gap_to_majority,
    "max |gamma_opt - gamma_Sub| at m=1 (Lemma 3.2)": lemmas.optimum_gap_to_subsampling,
    "max privacy violation of gamma_DSub (vertices and i.i.d. grid)": lemmas.double_subsampling_violation,
    "number of vertex multisets": lemmas.vertex_multisets,
    "LP objective": lp_objective,
    "min_{l=51..60} gamma_opt(l) (jagged gamma)": jagged_minimum,
    "gamma_opt next to that zero, max of l-1 and l+1": jagged_neighbour,
}
"""The quantities computed case by case: each a plain function ``(case, run) → (value, samples)``."""

GAMMA = re.compile(r"gamma_(?P<series>opt|opt-U|opt-P)\(l\)")
ERROR = re.compile(r"E\[(?P<label>[\w-]+)\] under (?P<prior>.+)")
ERROR_SERIES = {"RR": "const"}
"""Monte-Carlo labels that differ from the series name (the spec calls γ_const RR)."""


def ensemble_errors(cases: list[Case], run: Run) -> list[float]:
    """E of each case's series at its m, all under one setting's prior, from one set of draws."""
    first = cases[0]
    prior = ERROR.fullmatch(first.quantity)["prior"]
    gammas = [
        series_gamma(ERROR_SERIES.get(label, label), case.K, case.m, case.eps, solver=run.solver)
        for case in cases
        for label in [ERROR.fullmatch(case.quantity)["label"]]
    ]
    rng = seeding.generator(run.seed, PAPER, "verified", first.setting, prior)
    n_draws = run.draws(first.K)
    mean, _ = majority_utility.monte_carlo_error(
        np.stack(gammas), first.K, majority_utility.PRIORS[prior], n_draws, 1, rng
    )
    return [(float(value), n_draws) for value in mean]


def case_value(case: Case, run: Run) -> tuple[float, int]:
    """``(value, samples)`` of one case that is not a Monte-Carlo error."""
    if case.quantity in QUANTITIES:
        return QUANTITIES[case.quantity](case, run)
    gamma = GAMMA.fullmatch(case.quantity)
    if gamma:
        return gamma_value(case, run, gamma["series"]), 0
    raise ValueError(
        f"verified case {case}: unknown quantity {case.quantity!r}; known: {sorted(QUANTITIES)}, "
        f"gamma_<opt|opt-U|opt-P>(l) and E[<series>] under <prior>"
    )


def verified_numbers(selections: list[dict], *, quick: bool, seed: int, solver: str) -> pd.DataFrame:
    """Compute the verified table's rows: one per distinct registry selection, in the registry's order.

    ``selections`` are the ``select`` mappings of the registry's claims on this table (repeats
    give one row). Columns :data:`VERIFIED_COLUMNS`. Monte-Carlo sizes: 2e5 draws at K ≤ 11,
    2e4 at K = 101, 2e5 random points for the vertex reduction; quick: 2e4 / 5e3 / 2e4. About
    10 s (quick ≈ 6 s).
    """
    run = Run(seed, solver, *((20_000, 5_000, 20_000) if quick else (200_000, 20_000, 200_000)))
    cases = list(dict.fromkeys(Case.from_select(select) for select in selections))
    values = {}
    groups = {}
    for case in cases:
        error = ERROR.fullmatch(case.quantity)
        if error:
            groups.setdefault((case.setting, error["prior"], case.K, case.eps), []).append(case)
        else:
            values[case] = case_value(case, run)
    for group in groups.values():
        values.update(zip(group, ensemble_errors(group, run)))
    rows = [(*astuple(case), samples, value) for case in cases for value, samples in [values[case]]]
    table = pd.DataFrame(rows, columns=VERIFIED_COLUMNS)
    return table.astype({"K": "Int64", "m": "Int64", "l": "Int64", "samples": int, "value": float})
