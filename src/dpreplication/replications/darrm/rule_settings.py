"""What each DaRRM rule computes with, shaped in one place from the config's ``darrm`` section.

:func:`rule_settings` is the one function the workflow reads a rule's ``settings`` param from (the
same in every paper: ``replications.<paper>.rule_settings``). A job's settings hold what its
numbers depend on and nothing else: a teacher set only its dataset's and kind's keys, a training
configuration of the ablation only its own, so that a config edit retrains exactly the teachers it
changes. Pure dictionaries, no heavy import (no torch, no training module): the workflow imports
this module while it builds the DAG. The training modules import the teacher and ablation shapes
from here (:func:`teacher_settings`, :func:`ablation_settings`, :func:`configuration_settings`).
"""

from __future__ import annotations

from types import SimpleNamespace

PURE_DP = {"Delta": 0.0, "composition": "general"}
"""The figures whose config has no Δ: each mechanism pure ε-DP (Δ = δ = 0, composition moot)."""
KINDS = ("private", "nonprivate")
"""The teacher sets of a dataset: DP-SGD (for DaRRM) and non-private (for GNMax)."""
COMMON_SETTINGS = ("classes", "teachers", "shard_size", "remainder", "train_size", "batch_size", "learning_rate")
KIND_SETTINGS = {
    "private": ("Delta", "noise_multiplier", "max_grad_norm", "private_steps"),
    "nonprivate": ("nonprivate_epochs",),
}
"""The keys of ``private_prediction`` a teacher set of each kind depends on, besides the common ones."""
ABLATION_SETTINGS = ("mean_probability", "gnmax_max_order", "solver")
"""Keys the teacher ablation reads besides the private teachers' own."""
CONFIGURATION_KEYS = ("dataset", "teachers", "seeds", "budgets")
"""Keys of the ablation section one configuration's training depends on (besides the configuration)."""
LP_FIELDS = ("K", "ms", "epsilon", "Delta", "composition", "mean_probability")
"""What one γ LP of the diagnostics is: K mechanisms, allowances m, ε, Δ, composition, prior mean p̄."""


def teacher_settings(section: dict, dataset: str, kind: str) -> dict:
    """Return the keys of the ``private_prediction`` section one teacher set (dataset, kind) depends on."""
    chosen = {key: section.get(key) for key in COMMON_SETTINGS + KIND_SETTINGS[kind]}
    return {**chosen, "datasets": {dataset: section["datasets"][dataset]}} if kind == "private" else chosen


def ablation_settings(section: dict, ablation: dict, solver: str) -> dict:
    """Return the ablation's settings: its dataset's private-teacher keys, γ_opt's and GNMax's, its own section."""
    chosen = teacher_settings(section, ablation["dataset"], "private")
    return {**chosen, **{key: section[key] for key in ABLATION_SETTINGS[:-1]}, "solver": solver, "ablation": ablation}


def configuration_settings(settings: dict, name: str) -> dict:
    """Return the part of :func:`ablation_settings` that training configuration ``name`` depends on.

    The private teachers' keys, and of the ablation section only :data:`CONFIGURATION_KEYS` and this
    configuration: adding a configuration, or changing m or the validation split, retrains none.
    """
    ablation = settings["ablation"]
    config = [c for c in ablation["configs"] if c["name"] == name]
    if len(config) != 1:
        raise ValueError(f"the teacher ablation has no single configuration named {name!r}")
    chosen = {key: value for key, value in settings.items() if key not in (*ABLATION_SETTINGS, "ablation")}
    return {**chosen, "ablation": {**{key: ablation[key] for key in CONFIGURATION_KEYS}, "configs": config}}


def figure(name: str, lp: bool = False):
    """Shape an analytic figure: its config section; one that solves the γ LP with the solver."""
    return lambda dr, wildcards: {**dr[name], "solver": dr["solver"]} if lp else dict(dr[name])


def lp_cases(dr, wildcards):
    """Shape the LP diagnostics: the γ LPs of the figures in ``lp_diagnostics.figures`` (pure DP where no Δ)."""
    cases = []
    for name in dr["lp_diagnostics"]["figures"]:
        section = {**PURE_DP, **dr[name]}
        cases.append({"setting": name, **{field: section[field] for field in LP_FIELDS}})
    return {"cases": cases, "solver": dr["solver"]}


def prediction(dr, wildcards):
    """Shape a table on the cached votes: the private-prediction section with the γ LP solver."""
    return {**dr["private_prediction"], "solver": dr["solver"]}


def ablation(dr, wildcards):
    """Shape the teacher ablation: :func:`ablation_settings` of the configured sections."""
    return ablation_settings(dr["private_prediction"], dr["teacher_ablation"], dr["solver"])


RULES = {
    **{name: figure(name, lp=True) for name in ("f2_gamma_shapes", "f5_gamma_shapes", "f7_gamma_shapes")},
    **{name: figure(name) for name in ("f3_errors", "f4_feasible_region", "f6_errors", "f8_errors")},
    "f9_prior_shapes": figure("f9_prior_shapes", lp=True),
    "f9_prior_errors": figure("f9_prior_errors"),
    "lp_diagnostics": lp_cases,
    "verified_numbers": figure("verified_numbers", lp=True),
    "prediction_data": lambda dr, w: {"timeout": dr["private_prediction"]["probe_timeout"]},
    "prediction_teachers": lambda dr, w: teacher_settings(dr["private_prediction"], w.dataset, w.kind),
    "prediction_teacher_replicate": lambda dr, w: teacher_settings(dr["private_prediction"], w.dataset, w.kind),
    "prediction_teacher_seeds": prediction,
    "prediction_privacy": prediction,
    "f10_gnmax_variance": lambda dr, w: {"max_order": dr["private_prediction"]["gnmax_max_order"]},
    "prediction_teachers_table": prediction,
    "prediction_teacher_diagnostics": prediction,
    "prediction_accuracy": prediction,
    "prediction_teacher_ablation_config": lambda dr, w: configuration_settings(ablation(dr, w), w.config),
    "prediction_teacher_ablation": ablation,
    "prediction_accuracy_best_config": lambda dr, w: {**prediction(dr, w), "ablation": dr["teacher_ablation"]},
}
"""Rule (its name without ``darrm_``) -> its settings as a function of the section and wildcards."""


def rule_settings(rule: str, dr: dict, wildcards=None) -> dict:
    """Return the ``settings`` param of rule ``darrm_<rule>`` from the ``darrm`` section ``dr``.

    ``wildcards`` are the job's (``dataset`` and ``kind`` of a teacher set, ``config`` of an
    ablation configuration) where its rule has them. An unknown rule is a ``KeyError`` that lists
    the known ones.
    """
    if rule not in RULES:
        raise KeyError(f"no settings for DaRRM rule {rule!r}; known: {sorted(RULES)}")
    return RULES[rule](dr, wildcards if wildcards is not None else SimpleNamespace())
