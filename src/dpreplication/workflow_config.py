"""The workflow's configuration as a user changes it: overlays merged section by section, and the
name of the output tree a changed configuration (a variant) writes to."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path

import yaml

NOT_RESULTS = ("variant", "data")
"""Top-level keys that change where things are, not what is computed: they never make a variant."""


def load_yaml(path: str | Path) -> dict:
    return yaml.safe_load(Path(path).read_text()) or {}


def merge_config(base: dict, overlay: dict) -> dict:
    """``overlay`` laid over ``base`` recursively (mappings merge, anything else replaces), as
    Snakemake merges config files; neither argument is modified."""
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_config(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def typed_value(value):
    """A command-line string as the YAML value it spells (``"2"`` → 2, ``"1e-5"`` → 1e-05,
    ``"[1, 2]"`` → a list, ``"true"`` → True); other values unchanged."""
    if not isinstance(value, str):
        return value
    for number in (int, float):
        try:
            return number(value)
        except ValueError:
            pass
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError:
        return value


def typed_overrides(overrides) -> dict:
    """``--config`` overrides with every nested string leaf given its YAML type."""

    def convert(value):
        if isinstance(value, dict) or hasattr(value, "items"):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [convert(v) for v in value]
        return typed_value(value)

    return {key: convert(value) if hasattr(value, "items") else value for key, value in dict(overrides).items()}


def configuration_hash(config: dict) -> str:
    """SHA256 of the canonical JSON of the result-relevant configuration."""
    relevant = {k: v for k, v in config.items() if k not in NOT_RESULTS}
    return hashlib.sha256(json.dumps(relevant, sort_keys=True, default=str).encode()).hexdigest()


def variant_name(config: dict, profile_config: dict) -> str:
    """``""`` when ``config`` computes what its profile computes; else the user's ``variant`` name,
    or ``<profile>-<first 10 hex of the configuration hash>``. A user's name is always used."""
    named = str(config.get("variant") or "")
    if named:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", named) or named in ("quick", "default", "paper"):
            raise ValueError(
                f"config key 'variant': {named!r} must be a plain name (letters, digits, _ . -) other than a profile's"
            )
        return named
    if configuration_hash(config) == configuration_hash(profile_config):
        return ""
    return f"{config['profile']}-{configuration_hash(config)[:10]}"


SCIPY_LP_METHODS = ("highs", "highs-ds", "highs-ipm")


def _sections(config: dict, path: str = ""):
    """Every mapping in ``config`` with its dotted key path."""
    for key, value in config.items():
        if isinstance(value, dict):
            dotted = f"{path}.{key}" if path else key
            yield dotted, value
            yield from _sections(value, dotted)


def cross_field_problems(config: dict) -> list[str]:
    """Checks the schema cannot state, each naming its key: DaRRM's privacy allowances m ≤ K (an
    ensemble of K mechanisms, or K teachers), and the truncated-Laplace LP solver against its
    back end. An empty list means the configuration is consistent."""
    problems = []
    for path, section in _sections(config):
        ensemble = section.get("K", section.get("teachers")) if path.startswith("darrm") else None
        if ensemble is not None and "ms" in section:
            too_large = [m for m in section["ms"] if not 1 <= m <= ensemble]
            if too_large:
                problems.append(f"config key '{path}.ms': {too_large} not in [1, K] with K = {ensemble}")
        if path == "truncated_laplace.lp_optimum" and section.get("backend", "scipy") == "scipy":
            if section.get("solver", "highs") not in SCIPY_LP_METHODS:
                problems.append(
                    f"config key '{path}.solver': {section.get('solver')!r} is not a scipy linprog method "
                    f"{list(SCIPY_LP_METHODS)} (or set backend: cvxpy)"
                )
    return problems


def check_package_location(package_file: str | Path, checkout: str | Path) -> str:
    """``""`` when the imported ``dpreplication`` is the checkout's own ``src/``, else why not."""
    imported = Path(package_file).resolve().parent
    expected = (Path(checkout) / "src" / "dpreplication").resolve()
    if imported == expected:
        return ""
    return (
        f"the workflow imports dpreplication from {imported}, not this checkout's {expected}: "
        "install the checkout with `pip install -e .` (make replicate does) or fix PYTHONPATH"
    )
