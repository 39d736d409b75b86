"""PrivGene's cross-field configuration checks: what the schema cannot state about the ``privgene`` section.

Called by :func:`dpreplication.pipeline.config_validation.cross_field_problems` before any job;
each problem names its key.
"""

from __future__ import annotations

import math


def _close_to_any(value: float, grid) -> bool:
    return any(math.isclose(value, g, rel_tol=1e-9, abs_tol=1e-15) for g in grid)


def privgene_problems(config: dict) -> list[str]:
    """Check PrivGene's settings: the c grid, the paper-r budgets, the folds, the selection variants.

    The reference c on the c grid, the paper-r budgets on the ε grid, fold numbers below the fold
    count, and the EEM/EM pair in the selection variants.
    """
    privgene, problems = config.get("privgene", {}), []
    choice = privgene.get("choice_of_c", {})
    if "reference_c" in choice and not _close_to_any(choice["reference_c"], choice.get("c_grid", [])):
        problems.append(
            f"config key 'privgene.choice_of_c.reference_c': {choice['reference_c']} is not in "
            f"privgene.choice_of_c.c_grid {choice.get('c_grid')} (its error is the denominator of Fig. 2)"
        )
    comparison = privgene.get("comparison", {})
    off_grid = [
        e for e in comparison.get("paper_r", {}).get("epsilons", []) if not _close_to_any(e, comparison["epsilons"])
    ]
    if off_grid:
        problems.append(
            f"config key 'privgene.comparison.paper_r.epsilons': {off_grid} not in privgene.comparison.epsilons "
            f"{comparison['epsilons']} (the ablation pairs with the main jobs)"
        )
    protocol = privgene.get("protocol", {})
    outside = [f for f in protocol.get("use_folds") or [] if not 0 <= f < protocol.get("folds", 5)]
    if outside:
        problems.append(
            f"config key 'privgene.protocol.use_folds': {outside} not in [0, folds) with folds = {protocol.get('folds', 5)}"
        )
    eem_vs_em = privgene.get("eem_vs_em", {})
    for key, may_be_empty in (("variants", False), ("paper_iteration_variants", True)):
        chosen = eem_vs_em.get(key)
        if chosen is not None and not {"EEM", "EM"} <= set(chosen) and not (may_be_empty and not chosen):
            problems.append(f"config key 'privgene.eem_vs_em.{key}': {chosen} must hold both EEM and EM")
    return problems + _reference_problems(privgene) + _baseline_check_problems(privgene)


def _reference_problems(privgene: dict) -> list[str]:
    """Check that the NoPrivacy/Majority reference jobs cover the datasets and tasks read from them.

    Figs 3–4 read NoPrivacy (where a series draws it) on their datasets, Figs 6–7 both methods on
    US and BR for their tasks, the PrivateERM baseline checks NoPrivacy LR on their datasets.
    """
    reference, comparison = privgene.get("reference", {}), privgene.get("comparison", {})
    drawn = [task for task, methods in comparison.get("methods", {}).items() if "NoPrivacy" in methods]
    checks = privgene.get("ablations", {}).get("baseline_checks", {})
    readers = {
        "datasets": {"privgene.comparison.datasets": comparison.get("datasets", []) if drawn else [],
                     "privgene.eem_vs_em": ["US", "BR"],
                     "privgene.ablations.baseline_checks.datasets": checks.get("datasets", [])},
        "tasks": {"privgene.comparison.methods": drawn, "privgene.eem_vs_em.tasks": privgene.get("eem_vs_em", {}).get("tasks", []),
                  "privgene.ablations.baseline_checks": ["lr"] if checks.get("datasets") else []},
    }  # fmt: skip
    problems = []
    for key, wanted_by in readers.items():
        lacking = {
            reader: [v for v in wanted if v not in reference.get(key, wanted)] for reader, wanted in wanted_by.items()
        }
        missing = list(dict.fromkeys(value for values in lacking.values() for value in values))
        if missing:
            who = [reader for reader, values in lacking.items() if values]
            problems.append(
                f"config key 'privgene.reference.{key}': {reference[key]} lacks {missing}, which "
                f"{' and '.join(who)} {'reads' if len(who) == 1 else 'read'} from the reference jobs"
            )
    return problems


def _baseline_check_problems(privgene: dict) -> list[str]:
    """Check that the Figs 3–4 jobs hold the PrivateERM runs the baseline checks pair with the library's.

    Every dataset and task of ``privgene.ablations.baseline_checks`` must be a Figs 3–4 panel that
    runs PrivateERM, over at least as many repetitions.
    """
    comparison = privgene.get("comparison", {})
    checks = privgene.get("ablations", {}).get("baseline_checks", {})
    key, problems = "config key 'privgene.ablations.baseline_checks", []
    datasets = [d for d in checks.get("datasets", []) if d not in comparison.get("datasets", [])]
    if datasets:
        problems.append(f"{key}.datasets': {datasets} not in privgene.comparison.datasets (PrivateERM is read there)")
    methods = comparison.get("methods", {})
    tasks = [t for t in checks.get("tasks", []) if "PrivateERM" not in methods.get(t, [])]
    if tasks:
        problems.append(f"{key}.tasks': {tasks} have no PrivateERM series in privgene.comparison.methods")
    if checks.get("repetitions", 0) > comparison.get("repetitions", math.inf):
        problems.append(
            f"{key}.repetitions': {checks['repetitions']} > privgene.comparison.repetitions "
            f"{comparison['repetitions']} (each pairs with a comparison run)"
        )
    return problems
