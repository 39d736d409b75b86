"""PrivGene figure tables: the job tables of :mod:`dpreplication.replications.privgene` aggregated
into Fig. 2, Figs 6–7, the Δ traces and the reference levels (mean ± 95 % CI), and the spec's
exact numbers with the exact EEM privacy audits (spec ``privgene.md`` §2.6, §5, §8.1–§8.5, §9).

Kept apart from the job module so that editing an aggregation reruns no finished job.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.data import tabular
from dpreplication.learning.genetic import initial_candidates, iterations, mutation_scales, privgene
from dpreplication.learning.protocol import mean_confidence_interval, repetition_folds, summarise
from dpreplication.mechanisms import enhanced_exponential as eem
from dpreplication.replications.privgene import (
    DATASETS,
    PAPER,
    TASKS,
    VARIANTS,
    algorithm_settings,
    eem_vs_em_job,
    make_fitness,
    task_labels,
    training_size,
)

# =========================================================================== figure tables


def figure_title(figure: str, data: tabular.TabularData, epsilon: float) -> str:
    """``"<figure>: <dataset> (<substitute>), ε = <ε>"``: a substitute is named in the figure itself."""
    spec = DATASETS[data.name]
    label = f" ({spec.short_label})" if data.substitute and spec.short_label else ""
    return f"{figure}: {data.name}{label}, ε = {epsilon:g}"


def choice_of_c(jobs: pd.DataFrame, reference_c: float) -> pd.DataFrame:
    """Fig. 2: error against c and its ratio to the error at ``reference_c`` (paired by repetition and fold).

    ``ratio`` is the mean over runs of ``error(c)/error(reference_c)`` on the same fold; its CI is
    the Student-t interval of those paired ratios.
    """
    rows = []
    for (dataset, task), panel in jobs.groupby(["dataset", "task"], sort=False):
        base = panel[np.isclose(panel.c, reference_c)].set_index(["repetition", "fold"]).error
        for c, runs in panel.groupby("c"):
            errors = runs.set_index(["repetition", "fold"]).error
            ratio = mean_confidence_interval((errors / base.reindex(errors.index)).to_numpy())
            error = mean_confidence_interval(errors.to_numpy())
            rows.append(
                {
                    "dataset": dataset,
                    "task": task,
                    "c": c,
                    "c_x1e3": round(c * 1e3, 6),
                    "epsilon": runs.epsilon.iloc[0],
                    "r": float(runs.r.mean()),
                    "runs": error["runs"],
                    "error": error["mean"],
                    "error_ci_low": error["ci_low"],
                    "error_ci_high": error["ci_high"],
                    "ratio": ratio["mean"],
                    "ratio_ci_low": ratio["ci_low"],
                    "ratio_ci_high": ratio["ci_high"],
                }
            )
    return pd.DataFrame(rows)


def choice_of_c_summary(table: pd.DataFrame, paper_c: float) -> pd.DataFrame:
    """The U-shape of Fig. 2 per panel and pooled over the panels (mean of their ratios).

    ``argmin_c_x1e3``: the c with the smallest ratio; ``left_rise`` / ``right_rise``: the ratio at
    the smallest / largest c minus the smallest ratio (both > 0 when the minimum is interior,
    the U of the paper); ``ratio_at_paper_c``: the ratio at the paper's c (the paper: < 1).
    """
    pooled = table.groupby("c", as_index=False).ratio.mean().assign(dataset="pooled", task="lr+svm")
    rows = []
    for (dataset, task), panel in pd.concat([table, pooled], ignore_index=True).groupby(
        ["dataset", "task"], sort=False
    ):
        panel = panel.sort_values("c")
        lowest = float(panel.ratio.min())
        rows.append(
            {
                "dataset": dataset,
                "task": task,
                "ratio_at_paper_c": float(panel.ratio[np.isclose(panel.c, paper_c)].iloc[0]),
                "argmin_c_x1e3": float(panel.c.iloc[int(np.argmin(panel.ratio))] * 1e3),
                "min_ratio": lowest,
                "left_rise": float(panel.ratio.iloc[0]) - lowest,
                "right_rise": float(panel.ratio.iloc[-1]) - lowest,
            }
        )
    return pd.DataFrame(rows)


def paper_r_job(
    data: tabular.TabularData,
    task: str,
    variant: str,
    repetition: int,
    *,
    seed: int,
    epsilon: float,
    algorithm: dict,
    paper_r: int,
    folds: int = 5,
    use_folds=None,
) -> pd.DataFrame:
    """Figs 6–7 ablation: the Figs 6–7 job at the paper's number of iterations (US 40, BR 38).

    Our US and BR copies are smaller than the paper's (18,405 and 18,699 training rows
    instead of 32,000 and 30,400), so the formula gives r = 23; here c is rescaled so that
    ``round(c·n_train·ε) = paper_r`` on every fold. Same seeds as the main job (paired); the
    method is labelled ``"<variant>, r=<paper_r>"``.
    """
    c = paper_r / (training_size(len(data.features), folds) * epsilon)
    frame = eem_vs_em_job(
        data,
        task,
        variant,
        repetition,
        seed=seed,
        epsilon=epsilon,
        algorithm={**algorithm, "c": c},
        folds=folds,
        use_folds=use_folds,
    )
    if not (frame.r == paper_r).all():
        raise ValueError(f"{data.name}: rescaled c gives r = {sorted(set(frame.r))}, not {paper_r}")
    return frame.assign(method=f"{variant}, r={paper_r}")


def eem_vs_em(jobs: pd.DataFrame, references: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figs 6–7: mean test error (± 95 % CI) of the vector selected at each iteration, per variant,
    with the mean Δ1, Δ2 and Δ used; NoPrivacy and Majority as flat series when given."""
    keys = ["dataset", "task", "method", "iteration"]
    table = summarise(jobs, keys, "error")
    deltas = (
        jobs.groupby(keys, sort=False)[["delta1", "delta2", "delta_used", "mutation_scale", "r"]].mean().reset_index()
    )
    table = table.merge(deltas, on=keys)
    if references is not None and not references.empty:
        levels = summarise(references, ["dataset", "task", "method"], "error")
        grid = table[["dataset", "task", "iteration"]].drop_duplicates()
        flat = grid.merge(levels, on=["dataset", "task"])
        table = pd.concat([table, flat], ignore_index=True)
    return table.rename(columns={"mean": "error"})


def eem_vs_em_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task): final errors of EEM and EM, the final gap EM − EEM and its growth from iteration 1."""
    rows = []
    for (dataset, task), panel in table.groupby(["dataset", "task"], sort=False):
        curves = {m: rows_.set_index("iteration").error.dropna() for m, rows_ in panel.groupby("method")}
        gap = (curves["EM"] - curves["EEM"]).dropna()
        last = int(gap.index.max())
        at_paper_r = sorted(m for m in curves if m.startswith("EEM, r="))
        paper = {}
        if at_paper_r:
            eem_paper, em_paper = curves[at_paper_r[0]], curves[at_paper_r[0].replace("EEM", "EM", 1)]
            paper = {
                "paper_r": int(eem_paper.index.max()),
                "eem_final_error_paper_r": float(eem_paper.iloc[-1]),
                "em_final_error_paper_r": float(em_paper.iloc[-1]),
                "final_gap_paper_r": float(em_paper.iloc[-1] - eem_paper.iloc[-1]),
                "max_gap_paper_r": float((em_paper - eem_paper).max()),
            }
        rows.append(
            {
                "dataset": dataset,
                "task": task,
                "iterations": last,
                "eem_final_error": float(curves["EEM"].loc[last]),
                "em_final_error": float(curves["EM"].loc[last]),
                "eem_rnm_exp_final_error": float(curves["EEM-RNMExp"].loc[last]) if "EEM-RNMExp" in curves else np.nan,
                "final_gap": float(gap.loc[last]),
                "first_gap": float(gap.loc[1]),
                "max_gap": float(gap.max()),
                "gap_growth": float(gap.loc[last] - gap.loc[1]),
                "noprivacy_error": float(curves["NoPrivacy"].iloc[0]) if "NoPrivacy" in curves else np.nan,
                "majority_error": float(curves["Majority"].iloc[0]) if "Majority" in curves else np.nan,
                **paper,
            }
        )
    return pd.DataFrame(rows)


def dampening_trace(jobs: pd.DataFrame, algorithm: dict) -> pd.DataFrame:
    """Δ1, Δ2 and the Δ used per iteration (mean over runs), the extra of spec §9, with exactness checks.

    ``delta2_over_4bs``: Δ2 at iteration i ≥ 2 divided by ``4·b·s_{i-1}`` (b = 1 for LR, C for the
    SVM; spec §2.3 "after iter. 1, m' = 1"), averaged over runs.
    """
    jobs = jobs.copy()
    bound = np.where(jobs.task == "svm", algorithm["svm_C"], 1.0)
    previous_scale = jobs.groupby(["dataset", "task", "method", "repetition", "fold"]).mutation_scale.shift(1)
    jobs["delta2_over_4bs"] = jobs.delta2 / (4.0 * bound * previous_scale)
    jobs["delta2_over_delta1"] = jobs.delta2 / jobs.delta1
    keys = ["dataset", "task", "method", "iteration"]
    columns = ["delta1", "delta2", "delta_used", "delta2_over_delta1", "delta2_over_4bs"]
    return jobs.groupby(keys, sort=False)[columns].agg(["mean", "max", "min"]).pipe(_flatten).reset_index()


def _flatten(frame: pd.DataFrame) -> pd.DataFrame:
    frame.columns = [f"{a}_{b}" for a, b in frame.columns]
    return frame


def dampening_summary(trace: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task, method): the largest Δ2/Δ1 after iteration 1 (spec §9: ≤ 1), the Δ2 = 4bs
    exactness (max deviation over runs and iterations) and the smallest Δ2/Δ1 at iteration 1 over
    runs (> 1: the first selection, among random vectors, is Δ1-bound in every run)."""
    rows = []
    for (dataset, task, method), panel in trace.groupby(["dataset", "task", "method"], sort=False):
        later = panel[panel.iteration >= 2]
        first = panel[panel.iteration == 1].iloc[0]
        rows.append(
            {
                "dataset": dataset,
                "task": task,
                "method": method,
                "max_delta2_over_delta1_after_first": float(later.delta2_over_delta1_max.max()),
                "max_abs_delta2_over_4bs_minus_1": float(
                    np.maximum(np.abs(later.delta2_over_4bs_max - 1), np.abs(later.delta2_over_4bs_min - 1)).max()
                ),
                "first_delta1": float(first.delta1_mean),
                "first_delta2": float(first.delta2_mean),
                "first_min_delta2_over_delta1": float(first.delta2_over_delta1_min),
                "last_delta2": float(panel.delta2_mean.iloc[-1]),
                "last_delta1": float(panel.delta1_mean.iloc[-1]),
            }
        )
    return pd.DataFrame(rows)


def reference_levels(jobs: pd.DataFrame, data: dict[str, tabular.TabularData] | None = None) -> pd.DataFrame:
    """NoPrivacy and Majority misclassification (mean ± 95 % CI) per dataset and task, with the minority rate."""
    table = summarise(jobs, ["dataset", "task", "method"], "error").rename(columns={"mean": "error"})
    if data:
        minority = {name: float(min(d.labels.mean(), 1 - d.labels.mean())) for name, d in data.items()}
        table["minority_rate"] = table.dataset.map(minority)
    return table


# =========================================================================== verified numbers and audits


def tiny_classification(n: int, rng: np.random.Generator, dim: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``n`` random tuples of ``[-1, 1]^dim × {0, 1}`` (the audit's sensitive dataset)."""
    return rng.uniform(-1, 1, size=(n, dim)), rng.integers(0, 2, size=n).astype(float)


def replacement_tuples(n_random: int, rng: np.random.Generator, dim: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Every vertex of ``[-1, 1]^dim × {0, 1}`` plus ``n_random`` random tuples: the replacements of an audit."""
    vertices = np.array(list(product([-1.0, 1.0], repeat=dim)))
    x = np.vstack([np.repeat(vertices, 2, axis=0), rng.uniform(-1, 1, size=(n_random, dim))])
    y = np.concatenate([np.tile([0.0, 1.0], len(vertices)), rng.integers(0, 2, size=n_random).astype(float)])
    return x, y


def audit_candidates(regime: str, rng: np.random.Generator, d: int = 3, m: int = 20, scale: float = 0.5):
    """Candidate sets of the exact audit (spec §8.5): ``"random"`` on ``[-5, 5]^d`` (Δ1 binding) or
    ``"mutation"`` — a parent and its ``±s`` single-coordinate neighbours (Δ2 binding)."""
    if regime == "random":
        return rng.uniform(-5, 5, size=(m, d))
    if regime == "mutation":
        parent = rng.uniform(-2, 2, size=d)
        steps = np.vstack([np.eye(d), -np.eye(d)]) * scale
        return np.vstack([parent, parent + steps])
    raise ValueError(f"regime must be 'random' or 'mutation', got {regime!r}")


def exact_privacy_audit(
    task: str,
    regime: str,
    selector: str,
    rng: np.random.Generator,
    epsilon: float = 1.0,
    n: int = 30,
    n_random: int = 200,
    dampening_scale: float = 1.0,
    delta2_factor: float = 1.0,
) -> dict:
    """Exact ε-DP audit of one EEM selection on a tiny dataset (spec §8.5).

    Every neighbour replaces one of the ``n`` tuples by a vertex of the domain or one of
    ``n_random`` random tuples; the selection pmfs are exact, so the largest
    ``|log P_D(ω) - log P_D'(ω)|`` is the privacy loss. ``dampening_scale`` multiplies the
    EEM factor and ``delta2_factor`` only its Δ2 (negative controls: a wrong factor must
    exceed ε somewhere).
    """
    x, y = tiny_classification(n, rng)
    candidates = audit_candidates(regime, rng)
    fitness = make_fitness(task, x, y)
    delta1, delta2 = fitness.delta1(candidates), delta2_factor * fitness.delta2(candidates)
    dampening = dampening_scale * eem.dampening_factor(delta1, delta2, "eem")
    truth = task_labels(task, y)
    own = fitness.tuple_scores(x, truth, candidates)
    rx, ry = replacement_tuples(n_random, rng)
    replacement = fitness.tuple_scores(rx, task_labels(task, ry), candidates)
    scores = fitness.scores(candidates)
    neighbours = scores[None, None, :] - own[:, None, :] + replacement[None, :, :]
    loss = eem.privacy_loss(scores, neighbours, epsilon, dampening, selector)
    return {
        "task": task,
        "regime": regime,
        "selector": selector,
        "epsilon": epsilon,
        "delta1": delta1,
        "delta2": delta2,
        "dampening": dampening,
        "binding": "delta1" if delta1 <= delta2 else "delta2",
        "neighbours": int(np.prod(neighbours.shape[:2])),
        "max_privacy_loss": loss,
        "loss_over_epsilon": loss / epsilon,
    }


def first_selection_random_mass(
    data: tabular.TabularData,
    task: str,
    c_values,
    seed: int,
    algorithm: dict,
    epsilon: float = 1.0,
    draws: int = 20,
    folds: int = 5,
) -> dict[float, float]:
    """P(the first selection of PrivGene+EEM picks a random initial vector, not one of Ω±), per c.

    Exact over the selection's pmf (budget ε/r, Δ = min(Δ1, Δ2) of the initial set) on the
    training part of fold 0 of repetition 0, averaged over ``draws`` seeded initial sets. A
    random vector cannot be repaired by one-coordinate mutations, so this mass is a floor on
    the runs that fail (the right arm of Fig. 2's U).
    """
    train, _ = repetition_folds(len(data.features), folds, seed, PAPER, data.name, 0)[0]
    fitness = make_fitness(task, data.features[train], data.labels[train], algorithm["svm_C"])
    settings = algorithm_settings(algorithm, **VARIANTS["EEM"])
    random_part = settings.m - 2 * settings.constant_classifiers
    masses = {c: [] for c in c_values}
    for draw in range(draws):
        candidates = initial_candidates(
            fitness, settings, seeding.generator(seed, PAPER, "first selection", data.name, task, draw)
        )
        scores = fitness.scores(candidates)
        delta = eem.dampening_factor(fitness.delta1(candidates), fitness.delta2(candidates), "eem")
        for c in c_values:
            budget = epsilon / iterations(c, fitness.size, epsilon, 1)
            masses[c].append(eem.selection_pmf(scores, budget, delta)[:random_part].sum())
    return {c: float(np.mean(values)) for c, values in masses.items()}


def verified_numbers(
    seed: int,
    algorithm: dict,
    audit_random_tuples: int = 200,
    data_sizes: dict[str, int] | None = None,
    first_selection: tabular.TabularData | None = None,
    c_values=(0.5e-3, 1.25e-3, 2e-3, 3e-3),
) -> pd.DataFrame:
    """The spec's exact numbers recomputed (§2.3, §2.5, §2.6, §8.1–§8.5), the exact EEM audits and,
    given ``first_selection`` (Adult), the probability that the first selection is a random vector.

    Columns: quantity, parameters, value, spec_value (NaN where the spec states none).
    """
    rows = []
    eps_grid = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0)
    spec_r = {
        "Adult": (39074, (2, 5, 10, 20, 39, 49)),
        "Banking": (36169, (2, 5, 9, 18, 36, 45)),
        "US": (32000, (2, 4, 8, 16, 32, 40)),
        "BR": (30400, (2, 4, 8, 15, 30, 38)),
    }
    for name, (n_train, expected) in spec_r.items():
        for epsilon, value in zip(eps_grid, expected):
            rows.append(
                ("r (EEM, m'=1)", f"{name} n={n_train} eps={epsilon}", iterations(1.25e-3, n_train, epsilon, 1), value)
            )
    rows.append(("r (EM, m'=10)", "n=39074 eps=1", iterations(1.25e-3, 39074, 1.0, 10), 5))
    rows.append(("r (EM, m'=10)", "n=26733 eps=0.1", iterations(1.25e-3, 26733, 0.1, 10), 1))
    for name, n in (data_sizes or {}).items():
        rows.append(
            ("r (EEM, m'=1) of our copy at eps=1", f"{name} n_train={n}", iterations(algorithm["c"], n, 1.0, 1), np.nan)
        )
    scales = mutation_scales(0.5, 48, algorithm["decay"], algorithm["schedule"])
    rows.append(("mutation scale s_48", "s_1=0.5, x0.95", float(scales[47]), 0.04487))
    example = -((np.arange(11.0)[:, None] - np.array([6.0, 7.0, 8.0])[None, :]) ** 2)
    delta1, delta2 = eem.exact_dampening(example)
    rows += [
        ("Example 1 Delta1", "T={0..10}, Omega={6,7,8}", delta1, 128.0),
        ("Example 1 Delta2", "T={0..10}, Omega={6,7,8}", delta2, 56.0),
        ("Example 1 tight Delta*", "T={0..10}, Omega={6,7,8}", eem.tight_dampening(example), np.nan),
    ]

    rng = seeding.generator(seed, PAPER, "verified_numbers", "budget")
    x, y = tiny_classification(2000, rng, dim=4)
    run = privgene(make_fitness("lr", x, y), 0.7, algorithm_settings(algorithm, c=0.01, **VARIANTS["EEM"]), rng)
    rows.append(
        (
            "sum of DP_Select budgets / eps",
            f"synthetic LR, r={run.iterations}",
            float(run.trace.epsilon_spent.sum() / 0.7),
            1.0,
        )
    )

    for task, regime, selector in product(TASKS, ("random", "mutation"), ("exponential_mechanism", "rnm_exp")):
        for label, scale in (("", 1.0), (" (negative control: Delta/4)", 0.25)):
            audit = exact_privacy_audit(
                task,
                regime,
                selector,
                seeding.generator(seed, PAPER, "audit", task, regime),
                n_random=audit_random_tuples,
                dampening_scale=scale,
            )
            rows.append(
                (
                    f"EEM max privacy loss / eps{label}",
                    f"{task} {regime} ({audit['binding']} binding) {selector}",
                    audit["loss_over_epsilon"],
                    np.nan,
                )
            )
    if first_selection is not None:
        for task in TASKS:
            for c, mass in first_selection_random_mass(first_selection, task, c_values, seed, algorithm).items():
                rows.append(
                    (
                        "P(first selection is a random initial vector)",
                        f"{first_selection.name} {task} eps=1 c={c * 1e3:g}e-3",
                        mass,
                        np.nan,
                    )
                )
    return pd.DataFrame(rows, columns=["quantity", "parameters", "value", "spec_value"])
