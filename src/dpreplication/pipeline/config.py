"""The workflow's configuration as a user changes it.

Overlays are merged section by section, defaults filled from the schema (their one home), and a
changed configuration (a variant) is given the name of the output tree it writes to.

Usage: ``python -m dpreplication.pipeline.config [PROFILE]`` prints a profile's whole configuration,
every default filled in.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import hashlib
import io
import json
import math
import os
import re
import subprocess
from pathlib import Path

import yaml

THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""One thread per job: floating-point sums in one order; Snakemake runs jobs in parallel instead."""
INSTRUCTION_SETS = {
    # The default: AVX2 and FMA in NumPy, PyTorch's ATen and oneDNN, OpenBLAS; MKL on its SSE2 branch.
    # MKL honours an ISA branch such as AVX2 on Intel CPUs only: on AMD it falls back to its own
    # dispatch ("CNR:AUTO" in MKL_VERBOSE), so torch's SGEMMs rounded differently on an Intel Xeon
    # than here. COMPATIBLE is MKL's one branch that is the same on every x86-64 vendor.
    "x86-64-v3": {
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        "ATEN_CPU_CAPABILITY": "avx2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "MKL_CBWR": "COMPATIBLE",
        "OPENBLAS_CORETYPE": "Haswell",
    },
    # SSE4.2 and older everywhere: runs on any x86-64 machine NumPy supports; CI's second machine.
    "x86-64-v2": {
        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
        "ATEN_CPU_CAPABILITY": "default",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "MKL_CBWR": "COMPATIBLE",
        "OPENBLAS_CORETYPE": "Nehalem",
    },
    # AVX-512 everywhere (needs a CPU with AVX-512F; MKL's AVX512 branch only on Intel).
    "x86-64-v4": {
        "NPY_DISABLE_CPU_FEATURES": None,
        "ATEN_CPU_CAPABILITY": "avx512",
        "ONEDNN_MAX_CPU_ISA": "AVX512_CORE",
        "MKL_CBWR": "AVX512",
        "OPENBLAS_CORETYPE": "SkylakeX",
    },
    # Whatever each library picks on this CPU: the unpinned path.
    "native": {
        "NPY_DISABLE_CPU_FEATURES": None,
        "ATEN_CPU_CAPABILITY": None,
        "ONEDNN_MAX_CPU_ISA": None,
        "MKL_CBWR": None,
        "OPENBLAS_CORETYPE": None,
    },
}
"""Named instruction-set pins (config key ``instruction_set``): each variable's value, ``None`` = unset."""
DEFAULT_INSTRUCTION_SET = "x86-64-v3"
REQUIRED_CPU_FLAGS = {"x86-64-v3": ("avx2", "fma"), "x86-64-v2": ("sse4_2",), "x86-64-v4": ("avx512f",), "native": ()}
"""The CPU flags (``/proc/cpuinfo``) an instruction set needs: without them a pinned kernel would not run."""


def job_environment(instruction_set: str = DEFAULT_INSTRUCTION_SET) -> dict[str, str | None]:
    """Every variable the workflow sets for its jobs: threads and the pins of ``instruction_set``.

    ``None`` means the variable is removed, so that the library chooses for itself.
    """
    if instruction_set not in INSTRUCTION_SETS:
        raise ValueError(f"unknown instruction set {instruction_set!r}; choose one of {sorted(INSTRUCTION_SETS)}")
    return {**THREADS, **INSTRUCTION_SETS[instruction_set]}


JOB_ENVIRONMENT = job_environment()
"""The default job environment: every job of a committed profile runs with exactly these values."""


def apply_job_environment(environ, instruction_set: str = DEFAULT_INSTRUCTION_SET) -> dict[str, str]:
    """Set (not default) :func:`job_environment` in ``environ``; return the user's values it replaced."""
    replaced = {}
    for variable, value in job_environment(instruction_set).items():
        if environ.get(variable) not in (None, value):
            replaced[variable] = environ[variable]
        if value is None:
            environ.pop(variable, None)
        else:
            environ[variable] = value
    return replaced


def instruction_set_problem(instruction_set: str, cpu_flags: set[str] | None) -> str:
    """``""`` unless this CPU lacks a flag that ``instruction_set`` needs (unknown flags: no problem)."""
    missing = [flag for flag in REQUIRED_CPU_FLAGS[instruction_set] if cpu_flags is not None and flag not in cpu_flags]
    if not missing:
        return ""
    return (
        f"config key 'instruction_set': {instruction_set} needs CPU flags {missing} that this machine lacks; "
        f"choose one of {[name for name, flags in REQUIRED_CPU_FLAGS.items() if set(flags) <= cpu_flags]}"
    )


def cpu_flags(cpuinfo: str | Path = "/proc/cpuinfo") -> set[str] | None:
    """Return the CPU's feature flags from ``/proc/cpuinfo`` (``None`` where it cannot be read: not Linux)."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return None
    flags = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return set(flags.group(1).split()) if flags else None


NOT_RESULTS = ("variant", "data")
"""Top-level keys that change where things are, not what is computed: they never make a variant."""


def load_yaml(path: str | Path) -> dict:
    """Return the YAML mapping in ``path`` (``{}`` for an empty file).

    Read by :func:`dpreplication.validation.yaml_file`: a file over 1 MB, or whose aliases expand
    beyond 10,000 nodes, is refused (``ValueError`` naming it) before it is parsed or built.
    """
    from dpreplication.validation import yaml_file  # numpy's import is not every job's to pay

    return yaml_file(path) or {}


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


def _cut(text: str, width: int = SHOWN_VALUE) -> str:
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
                f"config key '{_cut(_key_path(path))}': the configuration holds more than {limit:,} values "
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
            message = _cut(value) + message[len(value) :]
        where = f"config key '{_key_path(error.absolute_path)}'" if error.absolute_path else "config"
        nearest = []
        if error.validator == "enum" and isinstance(error.instance, str):
            nearest = difflib.get_close_matches(error.instance, [str(option) for option in error.validator_value], n=1)
        hint = f"; did you mean '{nearest[0]}'?" if nearest else ""
        problems.append(f"{where}: {_cut(message, 4 * SHOWN_VALUE)}{hint}")
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
            f"did you mean '{nearest[0]}'?" if nearest else f"expected one of {_cut(', '.join(known), 2 * SHOWN_VALUE)}"
        )
        problems.append(f"config key '{_cut(_key_path([*path, key]))}': unknown key; {hint}")
    return problems


def _refuse(problems: list[str]) -> None:
    """Raise :class:`ConfigurationError` listing ``problems`` (the first :data:`SHOWN_PROBLEMS`), if any."""
    if problems:
        rest = len(problems) - SHOWN_PROBLEMS
        listed = problems[:SHOWN_PROBLEMS] + ([f"… and {rest} more"] if rest > 0 else [])
        raise ConfigurationError("invalid configuration:\n" + "\n".join(listed))


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


def _resolve_reference(subschema: dict, definitions: dict) -> dict:
    """Return ``subschema`` with its local ``$ref`` (``#/$defs/<name>``) expanded; sibling keys win."""
    while isinstance(subschema, dict) and "$ref" in subschema:
        siblings = {key: value for key, value in subschema.items() if key != "$ref"}
        subschema = {**definitions[subschema["$ref"].rsplit("/", 1)[-1]], **siblings}
    return subschema


def _in_schema_order(value, subschema: dict, definitions: dict):
    """``value`` with every mapping's keys in the order its schema lists them.

    Keys the schema does not list follow, in their own order. So the order a user writes keys in never
    changes an output.
    """
    subschema = _resolve_reference(subschema, definitions)
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
    configuration of more than :data:`CONFIG_MAX_VALUES` values, or one the schema refuses, raises
    :class:`ConfigurationError`: one line per problem, naming its key and showing the value cut to
    80 characters. Mappings come in schema order; the argument is not modified. ``schema``, when
    given, is used instead of the file at ``schema_path``.
    """
    _refuse([problem] if (problem := size_problem(config)) else [])
    schema = load_yaml(schema_path) if schema is None else schema
    resolved = copy.deepcopy(config)
    _refuse(schema_problems(resolved, schema))  # fills the defaults in as it validates
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
        return yaml_text(value, f"--config value {_cut(repr(value))}")
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


SCIPY_LP_METHODS = ("highs", "highs-ds", "highs-ipm")


def _sections(config: dict, path: str = ""):
    """Every mapping in ``config`` with its dotted key path."""
    for key, value in config.items():
        if isinstance(value, dict):
            dotted = f"{path}.{key}" if path else key
            yield dotted, value
            yield from _sections(value, dotted)


def _close_to_any(value: float, grid) -> bool:
    return any(math.isclose(value, g, rel_tol=1e-9, abs_tol=1e-15) for g in grid)


def _darrm_problems(config: dict) -> list[str]:
    """Check DaRRM's settings: the privacy allowances, the private-prediction shards, the teacher ablation.

    Every privacy allowance m ≤ K (an ensemble of K mechanisms, or K teachers); the
    private-prediction classes differ and the shards fit; the teacher ablation within the ensemble
    and its budgets defined.
    """
    problems = []
    for path, section in _sections(config.get("darrm", {}), "darrm"):
        ensemble = section.get("K", section.get("teachers"))
        if ensemble is not None and "ms" in section:
            too_large = [m for m in section["ms"] if not 1 <= m <= ensemble]
            if too_large:
                problems.append(f"config key '{path}.ms': {too_large} not in [1, K] with K = {ensemble}")
    prediction = config.get("darrm", {}).get("private_prediction", {})
    K = prediction.get("teachers")
    classes = prediction.get("classes", [])
    if len(set(classes)) != len(classes):
        problems.append(f"config key 'darrm.private_prediction.classes': {classes} must be two different classes")
    shard, train = prediction.get("shard_size"), prediction.get("train_size")
    if shard is not None and train is not None and K is not None and shard * K > train:
        problems.append(
            f"config key 'darrm.private_prediction.shard_size': {K} teachers × {shard} images exceed "
            f"train_size = {train}"
        )
    ablation = config.get("darrm", {}).get("teacher_ablation")
    if ablation and K is not None:
        for key in ("teachers", "m"):
            if key in ablation and not 1 <= ablation[key] <= K:
                problems.append(
                    f"config key 'darrm.teacher_ablation.{key}': {ablation[key]} not in [1, K] with "
                    f"K = darrm.private_prediction.teachers = {K}"
                )
        datasets = prediction.get("datasets", {})
        if "dataset" in ablation and datasets and ablation["dataset"] not in datasets:
            problems.append(
                f"config key 'darrm.teacher_ablation.dataset': {ablation['dataset']!r} is not one of "
                f"darrm.private_prediction.datasets {sorted(datasets)}"
            )
        budgets = ["stated", *ablation.get("budgets", {})]
        names = [c["name"] for c in ablation.get("configs", [])]
        if len(set(names)) != len(names):
            problems.append(f"config key 'darrm.teacher_ablation.configs': names {names} are not unique")
        for index, entry in enumerate(ablation.get("configs", [])):
            if entry["budget"] not in budgets:
                problems.append(
                    f"config key 'darrm.teacher_ablation.configs[{index}].budget': {entry['budget']!r} is not "
                    f"one of {budgets} (stated, or a key of darrm.teacher_ablation.budgets)"
                )
            elif entry["epochs"] is None and entry["budget"] != "stated":
                problems.append(
                    f"config key 'darrm.teacher_ablation.configs[{index}].epochs': null (the pipeline's protocol) "
                    f"needs budget 'stated', not {entry['budget']!r}"
                )
    return problems


def _privgene_problems(config: dict) -> list[str]:
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
    return problems + _reference_problems(privgene)


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


def _truncated_laplace_problems(config: dict) -> list[str]:
    """Check the truncated Laplace settings: the LP solver is one its back end has."""
    section = config.get("truncated_laplace", {}).get("lp_optimum", {})
    backend, solver = section.get("backend", "scipy"), section.get("solver", "highs")
    path = "truncated_laplace.lp_optimum.solver"
    if backend == "scipy" and solver not in SCIPY_LP_METHODS:
        return [
            f"config key '{path}': {solver!r} is not a scipy linprog method {list(SCIPY_LP_METHODS)} (or set backend: cvxpy)"
        ]
    if backend == "cvxpy":
        import cvxpy

        if str(solver).upper() not in cvxpy.installed_solvers():
            return [f"config key '{path}': {solver!r} is not an installed cvxpy solver {cvxpy.installed_solvers()}"]
    return []


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
    subschema = _resolve_reference(subschema or {}, definitions)
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
    """Return the problems the schema cannot state, each naming its key (see the helpers above).

    Run after validation, before any job. An empty list means the configuration is consistent.
    """
    return [
        *_folder_problems(config),
        *_darrm_problems(config),
        *_privgene_problems(config),
        *_truncated_laplace_problems(config),
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


def override_problems(argv: list[str]) -> list[str]:
    """Return the problems of a Snakemake command line's ``--config`` values and ``--configfile`` files.

    A key given twice in ``--config`` (Snakemake keeps the last, so ``profile=quick profile=default``
    silently ran the default profile, which publishes), and a ``--configfile`` that its YAML reader
    refuses (a key given twice in one mapping, an alias bomb, over 1 MB), each named.
    """
    from snakemake.cli import get_argument_parser

    from dpreplication.validation import yaml_file

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parsed, _ = get_argument_parser().parse_known_args(argv[1:])
    except SystemExit:
        return []
    keys = [item.split("=", 1)[0] for item in parsed.config or []]
    problems = [
        f"--config gives key {key!r} {keys.count(key)} times; give it once"
        for key in dict.fromkeys(keys)
        if keys.count(key) > 1
    ]
    import yaml

    for path in parsed.configfile or []:
        try:
            yaml_file(path)
        except (OSError, ValueError, yaml.YAMLError) as error:
            problems.append(f"--configfile {path}: {error}")
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


def requested_profiles(argv: list[str], environ) -> list[tuple[str, str]]:
    """Return the ``(option, folder)`` of every profile a Snakemake command line selects.

    Read by Snakemake's own parser: every ``--profile`` (in any spelling argparse accepts, such as
    ``--prof``; else ``$SNAKEMAKE_PROFILE``), then ``--workflow-profile``. ``argv`` is the whole
    command line; one Snakemake's parser refuses is not a Snakemake command line (the workflow
    parsed from Python, e.g. by ``pytest -q``) and selects none.
    """
    from snakemake.cli import get_argument_parser

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parsed, _ = get_argument_parser().parse_known_args(argv[1:])
    except SystemExit:
        return []
    profiles = parsed.profile or ([environ["SNAKEMAKE_PROFILE"]] if environ.get("SNAKEMAKE_PROFILE") else [])
    chosen = [("--profile", folder) for folder in profiles]
    if parsed.workflow_profile and parsed.workflow_profile != "none":
        chosen.append(("--workflow-profile", parsed.workflow_profile))
    return chosen


def profile_selection_problem(argv: list[str], environ, profile: str) -> str:
    """``""`` unless a profile of the command line selects another config profile than this run's.

    ``DIR/profile-key.yaml`` holds a profile's selection; the problem returned says how to fix the
    command line. A ``--configfile`` on the command line replaces the profile's ``configfiles`` (so
    its key silently drops out), and ``--config profile=…`` overrides it.
    """
    for option, chosen in requested_profiles(argv, environ):
        key_file = Path(chosen) / "profile-key.yaml"
        selected = load_yaml(key_file).get("profile") if key_file.is_file() else None
        if selected not in (None, profile):
            return (
                f"{option} {chosen} selects config profile {selected!r} ({key_file}), but this run's configuration "
                f"has profile {profile!r}: a --configfile on the command line replaces the profile's configfiles, "
                f"and --config profile=... overrides it. Pass the key file too (--configfile {key_file} YOUR.yaml) "
                f"or add --config profile={selected}"
            )
    return ""


def library_versions(*distributions: str) -> dict[str, str]:
    """``{distribution: installed version, or "missing"}``.

    A rule whose table depends on optional libraries takes this as a param, so installing, removing
    or upgrading one reruns it (rerun trigger ``params``) instead of leaving a table whose rows say
    "missing" behind. Read in the Snakemake process: with ``--software-deployment-method conda`` it
    describes that process's environment, not the job's.
    """
    from importlib import metadata

    versions = {}
    for name in distributions:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "missing"
    return versions


if __name__ == "__main__":
    import sys

    print(yaml.safe_dump(profile_config(*sys.argv[1:2]), sort_keys=False, allow_unicode=True), end="")
