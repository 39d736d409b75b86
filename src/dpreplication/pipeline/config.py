"""The workflow's configuration as a user changes it.

Overlays are merged section by section, defaults filled from the schema (their one home), and a
changed configuration (a variant) is given the name of the output tree it writes to. The checks a
configuration must pass are :mod:`~dpreplication.pipeline.config_validation`'s.

Usage: ``python -m dpreplication.pipeline.config [PROFILE]`` prints a profile's whole configuration,
every default filled in.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
from pathlib import Path

import yaml

from dpreplication.pipeline.config_validation import (
    cut_text,
    refuse_problems,
    resolve_reference,
    schema_problems,
    size_problem,
)

NOT_RESULTS = ("variant", "data")
"""Top-level keys that change where things are, not what is computed: they never make a variant."""


def load_yaml(path: str | Path) -> dict:
    """Return the YAML mapping in ``path`` (``{}`` for an empty file).

    Read by :func:`dpreplication.validation.yaml_file`: a file over 1 MB, or whose aliases expand
    beyond 10,000 nodes, is refused (``ValueError`` naming it) before it is parsed or built.
    """
    from dpreplication.validation import yaml_file  # numpy's import is not every job's to pay

    return yaml_file(path) or {}


SCHEMA = Path("workflow/schemas/config.schema.yaml")
"""The configuration schema, relative to the checkout: every key, its valid values and its default."""
BASE_CONFIG = Path("config/config.yaml")
"""The default profile: only what differs from the schema's defaults."""
PROFILES = Path("config/profiles")
"""One overlay per profile, ``<profile>.yaml``: only what differs from the default profile."""


def merge_config(base: dict, overlay: dict) -> dict:
    """``overlay`` laid over ``base`` recursively (mappings merge, anything else replaces).

    This is how Snakemake merges config files; neither argument is modified.
    """
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_config(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _in_schema_order(value, subschema: dict, definitions: dict):
    """``value`` with every mapping's keys in the order its schema lists them.

    Keys the schema does not list follow, in their own order. So the order a user writes keys in never
    changes an output.
    """
    subschema = resolve_reference(subschema, definitions)
    if isinstance(value, dict):
        properties = subschema.get("properties", {})
        extra = subschema.get("additionalProperties")
        ordered = [key for key in properties if key in value] + [key for key in value if key not in properties]
        return {
            key: _in_schema_order(
                value[key], properties.get(key, extra if isinstance(extra, dict) else {}), definitions
            )
            for key in ordered
        }
    if isinstance(value, list) and isinstance(subschema.get("items"), dict):
        return [_in_schema_order(item, subschema["items"], definitions) for item in value]
    return value


def with_defaults(config: dict, schema_path: str | Path = SCHEMA, schema: dict | None = None) -> dict:
    """``config`` validated against the schema, every missing key filled with its schema default.

    The validator is Snakemake's (``snakemake.utils.validate(..., set_default=True)``: JSON Schema
    2020-12, defaults set as each mapping is validated), but every problem is collected. A
    configuration of more than :data:`~dpreplication.pipeline.config_validation.CONFIG_MAX_VALUES`
    values, or one the schema refuses, raises
    :class:`~dpreplication.pipeline.config_validation.ConfigurationError`: one line per problem,
    naming its key and showing the value cut to 80 characters. Mappings come in schema order; the
    argument is not modified. ``schema``, when given, is used instead of the file at ``schema_path``.
    """
    refuse_problems([problem] if (problem := size_problem(config)) else [])
    schema = load_yaml(schema_path) if schema is None else schema
    resolved = copy.deepcopy(config)
    refuse_problems(schema_problems(resolved, schema))  # fills the defaults in as it validates
    return _in_schema_order(resolved, schema, schema.get("$defs", {}))


def committed_yaml(checkout: Path, relative: Path) -> dict:
    """Return the YAML mapping of ``checkout/relative`` as committed (git ``HEAD``).

    The working tree's file where there is no commit to read (not a git checkout, or a file not yet
    committed).
    """
    try:
        shown = subprocess.run(
            ["git", "-C", str(checkout), "show", f"HEAD:./{relative.as_posix()}"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return load_yaml(checkout / relative)
    from dpreplication.validation import yaml_text

    return yaml_text(shown.stdout, f"{relative.as_posix()} (as committed)") or {}


def profile_config(profile: str = "default", checkout: str | Path = ".") -> dict:
    """Return a profile's whole configuration as committed, resolved as the workflow resolves it.

    The base file, then the profile's overlay, then the schema's defaults, all three as committed:
    a hand edit of any of them makes the run a variant. An unknown profile raises ``ValueError``
    naming the known ones.
    """
    checkout = Path(checkout)
    overlay = PROFILES / f"{profile}.yaml"
    if not (checkout / overlay).is_file():
        known = sorted(path.stem for path in (checkout / PROFILES).glob("*.yaml"))
        raise ValueError(f"config key 'profile': unknown profile {profile!r}; choose one of {known}")
    merged = merge_config(committed_yaml(checkout, BASE_CONFIG), committed_yaml(checkout, overlay))
    merged["profile"] = profile
    return with_defaults(merged, schema=committed_yaml(checkout, SCHEMA))


def typed_value(value):
    """Return a command-line string as the YAML value it spells; other values unchanged.

    ``"2"`` → 2, ``"1e-5"`` → 1e-05, ``"[1, 2]"`` → a list, ``"true"`` → True. Numbers are tried
    first: YAML 1.1 reads ``1e-5`` as a string.
    """
    if not isinstance(value, str):
        return value
    for number in (int, float):
        try:
            return number(value)
        except ValueError:
            pass
    from dpreplication.validation import yaml_text

    try:
        return yaml_text(value, f"--config value {cut_text(repr(value))}")
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
    """Return the variant name of ``config``: ``""`` when it computes what its profile computes.

    Otherwise the user's ``variant`` name, or ``<profile>-<first 10 hex of the configuration hash>``.
    A user's name is always used; one that is not a plain name, or is a profile's, raises
    ``ValueError``.
    """
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


if __name__ == "__main__":
    import sys

    print(yaml.safe_dump(profile_config(*sys.argv[1:2]), sort_keys=False, allow_unicode=True), end="")
