"""What each truncated-Laplacian rule computes with, from the config's ``truncated_laplace`` section.

:func:`rule_settings` is the one function the workflow reads a rule's ``settings`` param from (the
same in every paper: ``replications.<paper>.rule_settings``). Every rule's settings are one config
section as it stands; Fig. 2 and Fig. 3 share ``ratio_curves`` and ``ratio_heatmap`` (the rule's
``quantity`` param tells amplitude from power). Pure dictionaries, no heavy import: the workflow
imports this module while it builds the DAG.
"""

from __future__ import annotations

from types import SimpleNamespace


def section(name: str):
    """Shape a rule whose settings are the config section ``name``."""
    return lambda tl, wildcards: dict(tl[name])


RULES = {
    **{
        rule: section(rule)
        for rule in (
            "density",
            "ratio_table",
            "ratio_facts",
            "canonical_values",
            "bound_gap",
            "bound_kinks",
            "lp_optimum",
            "monte_carlo",
            "privacy_audit",
            "privacy_profiles",
            "baselines",
            "small_epsilon_limit",
            "library_cross_check",
            "calibration_audit",
        )
    },
    "amplitude_ratio": section("ratio_curves"),
    "power_ratio": section("ratio_curves"),
    "amplitude_ratio_heatmap": section("ratio_heatmap"),
    "power_ratio_heatmap": section("ratio_heatmap"),
}
"""Rule (its name without ``tl_``) -> its settings as a function of the section and wildcards."""


def rule_settings(rule: str, tl: dict, wildcards=None) -> dict:
    """Return the ``settings`` param of rule ``tl_<rule>`` from the ``truncated_laplace`` section ``tl``.

    An unknown rule is a ``KeyError`` that lists the known ones.
    """
    if rule not in RULES:
        raise KeyError(f"no settings for truncated-Laplacian rule {rule!r}; known: {sorted(RULES)}")
    return RULES[rule](tl, wildcards if wildcards is not None else SimpleNamespace())
