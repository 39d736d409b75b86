"""What each permute-and-flip rule computes with, from the config's ``permute_and_flip`` section.

:func:`rule_settings` is the one function the workflow reads a rule's ``settings`` param from (the
same in every paper: ``replications.<paper>.rule_settings``). Every rule's settings are one config
section as it stands; the utility rules share ``utility``. Pure dictionaries, no heavy import: the
workflow imports this module while it builds the DAG.
"""

from __future__ import annotations

from types import SimpleNamespace


def section(name: str):
    """Shape a rule whose settings are the config section ``name``."""
    return lambda pf, wildcards: dict(pf[name])


RULES = {
    **{
        rule: section(rule)
        for rule in (
            "exact_tables",
            "worst_case",
            "privacy_audit",
            "pmf_bars",
            "tv_convergence",
            "pp_plot",
            "lemma_chain",
            "lemma_internals",
            "anchors",
        )
    },
    "utility_dataset": section("utility"),
    "utility_grid": section("utility"),
}
"""Rule (its name without ``pf_``) -> its settings as a function of the section and wildcards."""


def rule_settings(rule: str, pf: dict, wildcards=None) -> dict:
    """Return the ``settings`` param of rule ``pf_<rule>`` from the ``permute_and_flip`` section ``pf``.

    An unknown rule is a ``KeyError`` that lists the known ones.
    """
    if rule not in RULES:
        raise KeyError(f"no settings for permute-and-flip rule {rule!r}; known: {sorted(RULES)}")
    return RULES[rule](pf, wildcards if wildcards is not None else SimpleNamespace())
