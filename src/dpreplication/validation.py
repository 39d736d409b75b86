"""Argument checks shared by the public functions: each raises ``ValueError`` naming the argument.

One home for the checks of privacy parameters (ε, δ, Δ, σ, budgets): every message names the
argument, its valid range and the value received, e.g. ``epsilon must be positive and finite,
got nan``. Every comparison is written so that NaN fails it (``if not value > 0: raise``), and
every range is finite unless it says otherwise. The YAML files a user writes (the configuration,
the claim registries) are read by :func:`yaml_file`, which refuses a file too large, or whose
aliases expand too far, before it is built.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

RAISES = {
    "raises_out_of_range": """
        Raises
        ------
        ValueError
            If an argument lies outside its range (NaN and infinities included).
        """,
    "raises_privacy_out_of_range": """
        Raises
        ------
        ValueError
            If ``ε``, ``δ`` or Δ lies outside its range.
        """,
}
"""The ``Raises`` sections of functions that check their arguments here: placeholders ``{raises_out_of_range}``,
``{raises_privacy_out_of_range}`` of :func:`dpreplication.docstrings.shared_parameters`."""


def _shown(value):
    """``value`` as the message shows it: a numpy scalar as the Python number it holds."""
    return value.item() if isinstance(value, np.generic) else value


def _shown_array(value, array: np.ndarray) -> str:
    """``value`` as a message shows it (its repr); an array of more than 6 entries summarised (first and last 3)."""
    return np.array2string(array, threshold=6, edgeitems=3) if array.size > 6 else repr(_shown(value))


def _number(name: str, value) -> float:
    """``value`` as a float; ``ValueError`` naming ``name`` if it is not a real number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {_shown(value)!r}") from None


def positive(name: str, value, *, allow_infinity: bool = False) -> float:
    """``value`` as a float, required ``> 0`` and finite (or ``+inf`` if ``allow_infinity``)."""
    number = _number(name, value)
    if not (number > 0 and (math.isfinite(number) or allow_infinity)):
        limit = "positive (inf allowed)" if allow_infinity else "positive and finite"
        raise ValueError(f"{name} must be {limit}, got {_shown(value)!r}")
    return number


def non_negative(name: str, value, *, allow_infinity: bool = False) -> float:
    """``value`` as a float, required ``≥ 0`` and finite (or ``+inf`` if ``allow_infinity``)."""
    number = _number(name, value)
    if not (number >= 0 and (math.isfinite(number) or allow_infinity)):
        limit = "non-negative (inf allowed)" if allow_infinity else "non-negative and finite"
        raise ValueError(f"{name} must be {limit}, got {_shown(value)!r}")
    return number


def whole_number(name: str, value, *, minimum: int = 0) -> int:
    """``value`` as an int, required a whole number ``≥ minimum`` (a count: NaN, ±inf and booleans refused)."""
    number = _number(name, value)
    if isinstance(value, bool | np.bool_) or not (math.isfinite(number) and number.is_integer() and number >= minimum):
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {_shown(value)!r}")
    return int(number)


def in_unit_interval(name: str, value, *, include_zero: bool = True, include_one: bool = False) -> float:
    """``value`` as a float in [0, 1) by default (the ends as asked)."""
    number = _number(name, value)
    above = number >= 0 if include_zero else number > 0
    below = number <= 1 if include_one else number < 1
    if not (math.isfinite(number) and above and below):
        interval = ("[" if include_zero else "(") + "0, 1" + ("]" if include_one else ")")
        raise ValueError(f"{name} must lie in {interval}, got {_shown(value)!r}")
    return number


def one_of(name: str, value, allowed) -> str:
    """``value`` required to be one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {value!r}")
    return value


def finite_array(name: str, value) -> np.ndarray:
    """``value`` as a float array, every entry required finite (any real)."""
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {_shown_array(value, array)}")
    return array


def positive_array(name: str, value) -> np.ndarray:
    """``value`` as a float array, every entry required ``> 0`` and finite."""
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array) & (array > 0)):
        raise ValueError(f"{name} must be positive and finite, got {_shown_array(value, array)}")
    return array


def non_negative_array(name: str, value, *, allow_infinity: bool = False) -> np.ndarray:
    """``value`` as a float array, every entry required ``≥ 0`` and finite (or ``+inf`` if ``allow_infinity``)."""
    array = np.asarray(value, dtype=float)
    if not np.all((array >= 0) & (np.isfinite(array) | allow_infinity)):
        limit = "non-negative (inf allowed)" if allow_infinity else "non-negative and finite"
        raise ValueError(f"{name} must be {limit}, got {_shown_array(value, array)}")
    return array


def privacy_delta(delta, delta_max: float = 1.0) -> np.ndarray:
    """``delta`` as a float array, every entry required in ``(0, delta_max)``."""
    dlt = np.asarray(delta, dtype=float)
    if not np.all((dlt > 0) & (dlt < delta_max)):
        raise ValueError(f"delta must lie in (0, {delta_max}), got {_shown(delta)!r}")
    return dlt


def privacy_parameters(epsilon, delta, delta_max: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast float arrays of ``ε > 0`` (finite) and ``0 < δ < delta_max``; ``ValueError`` otherwise."""
    return np.broadcast_arrays(positive_array("epsilon", epsilon), privacy_delta(delta, delta_max))


def within_budget(mechanism: str, spent, allowed, *, relative_slack: float = 0.0) -> None:
    """Refuse a release that spends more than its budget: ``spent ≤ allowed (1 + relative_slack)``.

    Written so that NaN (in either amount) fails: a budget guard must never pass by default.

    Parameters
    ----------
    mechanism : str
        What spends the budget, named in the message (e.g. ``"DP-SGD teacher 3 of mnist"``).
    spent : float
        The ε it spends.
    allowed : float
        Its budget: a finite ε ≥ 0.
    relative_slack : float
        Rounding allowed above ``allowed``, relative, ``≥ 0``.

    Raises
    ------
    ValueError
        If ``spent`` exceeds the budget, or either amount is not finite.
    """
    spent, allowed = _number("spent", spent), _number("allowed", allowed)
    if not (math.isfinite(allowed) and allowed >= 0):
        raise ValueError(f"{mechanism}: the budget must be a finite ε ≥ 0, got {allowed!r}")
    if not spent <= allowed * (1.0 + relative_slack):
        raise ValueError(f"{mechanism} spends ε = {spent!r}, over its budget ε = {allowed!r}")


# =========================================================================== YAML files a user writes

YAML_MAX_BYTES = 1_000_000
"""The largest configuration or claim registry read (the largest registry is 120 kB): larger is refused unread."""
YAML_MAX_ALIAS_NODES = 10_000
"""The most nodes YAML aliases may add to a document beyond those written. An alias bomb (1 kB of
nested ``&a [*b, *b, …]`` that expands to millions of nodes) is refused before it is built."""


def yaml_file(path: str | Path, *, max_bytes: int = YAML_MAX_BYTES, max_alias_nodes: int = YAML_MAX_ALIAS_NODES):
    """Return the YAML document in ``path`` (safe types; ``None`` if empty), within the limits.

    Raises
    ------
    ValueError
        Naming the file, if it is over ``max_bytes`` (checked before it is read) or its aliases add
        more than ``max_alias_nodes`` nodes (:func:`yaml_text`).
    """
    size = Path(path).stat().st_size
    if size > max_bytes:
        raise ValueError(f"{path}: {size:,} bytes, over the {max_bytes:,} a YAML file may hold; refused unread")
    return yaml_text(Path(path).read_text(), str(path), max_bytes=max_bytes, max_alias_nodes=max_alias_nodes)


def yaml_text(text: str, source: str, *, max_bytes: int = YAML_MAX_BYTES, max_alias_nodes: int = YAML_MAX_ALIAS_NODES):
    """Return the YAML document ``text`` read from ``source`` (safe types; ``None`` if empty), within the limits.

    The document is composed (its node graph, where an alias is one shared node) and its size with
    every alias expanded counted before any Python object is built: more than ``max_alias_nodes``
    nodes beyond those written, a recursive alias, a key given twice in one mapping, nesting deeper
    than Python's recursion limit or more than ``max_bytes`` raise ``ValueError`` naming ``source``; a syntax error raises
    ``yaml.YAMLError``, whose marks name ``source``.
    """
    import yaml

    if len(text.encode()) > max_bytes:
        raise ValueError(f"{source}: {len(text.encode()):,} bytes, over the {max_bytes:,} a YAML text may hold")
    try:  # libyaml's parser where PyYAML has it (about 6 times faster on the schema)
        return _yaml_document(getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text), source, max_alias_nodes)
    except yaml.YAMLError:  # its marks name no file: read again in Python for the error that names it
        return _yaml_document(yaml.SafeLoader(text), source, max_alias_nodes)


def _yaml_document(loader, source: str, max_alias_nodes: int):
    """Compose, size-check and build one document with ``loader`` (:func:`yaml_text`)."""
    loader.name = source
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        written, expanded = _yaml_nodes(node, source)
        if expanded - written > max_alias_nodes:
            raise ValueError(
                f"{source}: its YAML aliases expand it to {expanded:,} nodes, {expanded - written:,} beyond the "
                f"{written:,} written (at most {max_alias_nodes:,}); refused before it is built"
            )
        return loader.construct_document(node)
    except RecursionError:
        raise ValueError(f"{source}: YAML nested too deeply to read") from None
    finally:
        loader.dispose()


def _yaml_nodes(root, source: str) -> tuple[int, int]:
    """``(distinct nodes, nodes with every alias expanded)`` of a composed YAML document, without recursion."""
    import yaml

    def children(node):
        if isinstance(node, yaml.MappingNode):
            return [part for pair in node.value for part in pair]
        return node.value if isinstance(node, yaml.SequenceNode) else []

    sizes, open_nodes, stack = {}, set(), [(root, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            open_nodes.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children(node))
        elif id(node) not in sizes:
            if id(node) in open_nodes:
                mark = node.start_mark
                raise ValueError(f"{source}: a recursive YAML alias at line {mark.line + 1}, column {mark.column + 1}")
            open_nodes.add(id(node))
            if isinstance(node, yaml.MappingNode):
                _refuse_repeated_keys(node, source)
            stack += [(node, True), *((child, False) for child in children(node))]
    return len(sizes), sizes[id(root)]


def _refuse_repeated_keys(mapping, source: str) -> None:
    """Refuse a key given twice in one YAML mapping (PyYAML keeps the last silently), naming both lines."""
    import yaml

    lines = {}
    for key, _ in mapping.value:
        if isinstance(key, yaml.ScalarNode):
            line = key.start_mark.line + 1
            if (key.tag, key.value) in lines:
                raise ValueError(
                    f"{source}: key {key.value!r} is given twice in one mapping (lines {lines[key.tag, key.value]} and {line})"
                )
            lines[key.tag, key.value] = line
