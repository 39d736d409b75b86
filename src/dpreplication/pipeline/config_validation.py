"""The checks a configuration must pass before any job: its size, the schema, usable values, consistency.

Each problem is one line naming its key (``config key 'darrm.f2_gamma_shapes.ms[1]': …``). The
papers' cross-field checks live beside their replications (``replications/<paper>/config_checks.py``);
:func:`cross_field_problems` runs them all.
"""

from __future__ import annotations

import copy
import difflib
import math
import os
from pathlib import Path

from dpreplication.replications.darrm.config_checks import darrm_problems
from dpreplication.replications.privgene.config_checks import privgene_problems
from dpreplication.replications.truncated_laplace.config_checks import truncated_laplace_problems


class ConfigurationError(ValueError):
    """A configuration the schema or its size limit refuses: one line per problem, each naming its key."""


CONFIG_MAX_VALUES = 100_000
"""The most values (mappings, lists and leaves, every YAML alias expanded) a configuration may hold;
the committed profiles hold about 900. A larger one is refused before it is validated: validation
walks every value, and its error message used to print the whole value (33 MB for a 1 kB alias bomb)."""
SHOWN_VALUE = 80
"""Characters of an offending value a problem shows (the rest elided with …)."""
SHOWN_PROBLEMS = 20
"""Problems listed one per line; the count of the rest follows."""


def _key_path(path) -> str:
    """Spell a key path as the messages do: ``darrm.f2_gamma_shapes.ms[1]``."""
    spelled = ""
    for part in path:
        spelled += f"[{part}]" if isinstance(part, int) else (f".{part}" if spelled else str(part))
    return spelled


def cut_text(text: str, width: int = SHOWN_VALUE) -> str:
    """``text`` cut to ``width`` characters (``…`` marks a cut)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def size_problem(config, limit: int = CONFIG_MAX_VALUES) -> str:
    """``""`` unless ``config`` holds more than ``limit`` values (aliases expanded); else the key where it ran over.

    Counted without expanding anything: at most ``limit`` values are visited, however far a YAML
    alias bomb would expand.
    """
    count, stack = 0, [((), config)]
    while stack:
        path, value = stack.pop()
        count += 1
        if count > limit:
            return (
                f"config key '{cut_text(_key_path(path))}': the configuration holds more than {limit:,} values "
                "once its YAML aliases are expanded (the profiles hold about 900); refused before validation"
            )
        if isinstance(value, dict):
            stack += [((*path, key), item) for key, item in value.items()]
        elif isinstance(value, list | tuple):
            stack += [((*path, index), item) for index, item in enumerate(value)]
    return ""


def _default_setting_validator(schema: dict):
    """Return the schema's validator that fills defaults as it goes, as ``snakemake.utils.validate`` does.

    Defaults are set only where the instance is a mapping (Snakemake's raised ``AttributeError``
    on a list given for a section).
    """
    from jsonschema import Draft202012Validator, validators

    properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, declared, instance, subschema):
        if isinstance(instance, dict):
            for key, entry in declared.items():
                if "default" in entry:
                    instance.setdefault(key, copy.deepcopy(entry["default"]))
        yield from properties(validator, declared, instance, subschema)

    return validators.extend(Draft202012Validator, {"properties": set_defaults})(schema)


def schema_problems(config: dict, schema: dict) -> list[str]:
    """Return one line per value the schema refuses: ``config key '<path>': <why>``, the value cut to 80 characters.

    ``config`` gets the schema's defaults filled in, as Snakemake's validation does. Sorted by key path.
    """
    problems = []
    for error in sorted(
        _default_setting_validator(schema).iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            problems += _unknown_key_problems(error.absolute_path, error.instance, error.schema)
            continue
        message, value = error.message, repr(error.instance)
        if message.startswith(value):
            message = cut_text(value) + message[len(value) :]
        where = f"config key '{_key_path(error.absolute_path)}'" if error.absolute_path else "config"
        nearest = []
        if error.validator == "enum" and isinstance(error.instance, str):
            nearest = difflib.get_close_matches(error.instance, [str(option) for option in error.validator_value], n=1)
        hint = f"; did you mean '{nearest[0]}'?" if nearest else ""
        problems.append(f"{where}: {cut_text(message, 4 * SHOWN_VALUE)}{hint}")
    return problems


def _unknown_key_problems(path, section: dict, subschema: dict) -> list[str]:
    """One line per key of ``section`` that ``subschema`` does not declare.

    Each names the nearest declared key (``difflib``'s ratio ≥ 0.6), else the declared keys.
    """
    known = list(subschema.get("properties", {}))
    problems = []
    for key in [key for key in section if key not in known]:
        nearest = difflib.get_close_matches(str(key), known, n=1)
        hint = (
            f"did you mean '{nearest[0]}'?"
            if nearest
            else f"expected one of {cut_text(', '.join(known), 2 * SHOWN_VALUE)}"
        )
        problems.append(f"config key '{cut_text(_key_path([*path, key]))}': unknown key; {hint}")
    return problems


def refuse_problems(problems: list[str]) -> None:
    """Raise :class:`ConfigurationError` listing ``problems`` (the first :data:`SHOWN_PROBLEMS`), if any."""
    if problems:
        rest = len(problems) - SHOWN_PROBLEMS
        listed = problems[:SHOWN_PROBLEMS] + ([f"… and {rest} more"] if rest > 0 else [])
        raise ConfigurationError("invalid configuration:\n" + "\n".join(listed))


def resolve_reference(subschema: dict, definitions: dict) -> dict:
    """Return ``subschema`` with its local ``$ref`` (``#/$defs/<name>``) expanded; sibling keys win."""
    while isinstance(subschema, dict) and "$ref" in subschema:
        siblings = {key: value for key, value in subschema.items() if key != "$ref"}
        subschema = {**definitions[subschema["$ref"].rsplit("/", 1)[-1]], **siblings}
    return subschema


def _schema_types(subschema: dict) -> set[str]:
    """Return the JSON types ``subschema`` allows (``type`` as a string or a list; none: any)."""
    declared = subschema.get("type", [])
    return {declared} if isinstance(declared, str) else set(declared)


def value_problems(config, schema: dict, path: str = "") -> list[str]:
    """Return the values JSON Schema lets through that no job can use, each naming its key.

    A float that is NaN or ±inf (``.nan`` in YAML, ``nan`` on the command line) fails every
    ``minimum`` comparison and so validates; a float where the schema asks for an integer
    (``seed: 1e3``) validates as an integer but breaks ``SeedSequence`` and ``range``.
    """
    definitions = schema.get("$defs", {})
    return _value_problems(config, schema, definitions, path)


def _value_problems(value, subschema: dict, definitions: dict, path: str) -> list[str]:
    subschema = resolve_reference(subschema or {}, definitions)
    if isinstance(value, dict):
        properties, extra = subschema.get("properties", {}), subschema.get("additionalProperties")
        return [
            problem
            for key, item in value.items()
            for problem in _value_problems(
                item,
                properties.get(key, extra if isinstance(extra, dict) else {}),
                definitions,
                f"{path}.{key}" if path else str(key),
            )
        ]
    if isinstance(value, list):
        prefix, items = subschema.get("prefixItems", []), subschema.get("items")
        return [
            problem
            for index, item in enumerate(value)
            for problem in _value_problems(
                item,
                prefix[index] if index < len(prefix) else (items if isinstance(items, dict) else {}),
                definitions,
                f"{path}[{index}]",
            )
        ]
    if isinstance(value, float) and not math.isfinite(value):
        return [f"config key '{path}': {value!r} is not a finite number"]
    types = _schema_types(subschema)
    if isinstance(value, float) and "integer" in types and "number" not in types:
        spelled = f"; write {int(value)}" if value.is_integer() else ""
        return [f"config key '{path}': {value!r} must be an integer{spelled}"]
    return []


def cross_field_problems(config: dict) -> list[str]:
    """Return the problems the schema cannot state, each naming its key.

    The output folder's (:func:`_folder_problems`) and each paper's (its replication's
    ``config_checks``). Run after validation, before any job. An empty list means the configuration
    is consistent.
    """
    return [
        *_folder_problems(config),
        *darrm_problems(config),
        *privgene_problems(config),
        *truncated_laplace_problems(config),
    ]


PUBLISHED = Path("figures")
"""The published tree: only the default profile's publishing rules write into it."""


def _folder_problems(config: dict) -> list[str]:
    """Refuse a folder the workflow writes to (the verified data) in the published tree."""
    directory = Path(config["data"]["directory"])
    inside = directory.is_absolute() and directory.resolve().is_relative_to(PUBLISHED.resolve())
    if inside or (not directory.is_absolute() and Path(os.path.normpath(directory)).parts[:1] == PUBLISHED.parts):
        return [
            f"config key 'data.directory': {str(directory)!r} lies in {PUBLISHED}/, the published tree; choose a folder outside it"
        ]
    return []
