"""DaRRM wiring: the config sections against the replication functions,
and the committed quick-profile γ tables (every γ they hold is private)."""

import inspect
from pathlib import Path

import pandas as pd
import pytest

from dpreplication.accounting.privacy_verifier import verify_privacy
from dpreplication.pipeline.config import profile_config
from dpreplication.pipeline.snakefile import load_workflow
from dpreplication.replications.darrm import analytic, verified

REPO = Path(__file__).resolve().parents[2]
REFERENCES = REPO / "tests" / "references" / "quick" / "darrm"
SHAPE_TABLES = ("f2_gamma_shapes", "f5_gamma_shapes", "f7_gamma_shapes", "f9_prior_shapes")

# config section -> the replication function its rule's script passes it to
FUNCTIONS = {
    **dict.fromkeys(SHAPE_TABLES, analytic.gamma_shapes),
    **dict.fromkeys(("f3_errors", "f6_errors", "f8_errors", "f9_prior_errors"), analytic.ensemble_errors),
    "f4_feasible_region": analytic.figure4_feasible_region,
    "verified_numbers": verified.verified_numbers,
}
RULE_PARAMS = {rule.name: dict(rule.params.items()) for rule in load_workflow(REPO / "Snakefile").rules}


def darrm_config(profile):
    return profile_config(profile, REPO)["darrm"]


# what the rules add to a section: the LP solver (darrm_settings(..., lp=True)), the seed, the γ
# table, and the figure's own keywords (its ``figure`` param: the label, Δ = 0 for pure DP, ...)
ADDED = {
    **dict.fromkeys(SHAPE_TABLES, {"solver"}),
    "verified_numbers": {"solver", "seed", "selections"},  # selections: the registry's cases
    **{section: {"shapes", "seed"} for section in ("f3_errors", "f6_errors", "f8_errors", "f9_prior_errors")},
}


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_config_sections_fit_the_replication_functions(profile):
    """A section plus what its rule adds binds its function exactly: no unknown key, none missing."""
    config = darrm_config(profile)
    for section, function in FUNCTIONS.items():
        added = dict.fromkeys(ADDED.get(section, ()))
        figure = RULE_PARAMS[f"darrm_{section}"].get("figure", {})
        inspect.signature(function).bind(**config[section], **added, **figure)  # TypeError on an unknown or missing key


@pytest.mark.skipif(not REFERENCES.is_dir(), reason="no quick-profile references yet")
@pytest.mark.parametrize("name", SHAPE_TABLES)
def test_every_gamma_in_the_shape_tables_is_private(name):
    table = pd.read_csv(REFERENCES / f"{name}.csv")
    for (K, m, epsilon, Delta, delta, series), rows in table.groupby(["K", "m", "epsilon", "Delta", "delta", "series"]):
        gamma = rows.sort_values("l").gamma.to_numpy()
        report = verify_privacy(gamma, int(K), m, epsilon, Delta, delta)
        assert report.violation <= 1e-12, f"{name}: {series} at m={m} violates (mε, δ)-DP by {report.violation:.3g}"
