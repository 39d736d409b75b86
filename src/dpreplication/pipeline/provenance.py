"""Provenance sidecars and table writers for every published figure and table.

Volatile facts (commit, versions, time) live in a JSON sidecar beside each
output, never inside image bytes, so PNGs and CSVs stay byte-stable.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from dpreplication.pipeline.instruction_sets import JOB_ENVIRONMENT

if TYPE_CHECKING:  # pandas costs 0.3 CPU-s to import: a job that draws or only starts need not pay it here
    import pandas as pd

_PACKAGES = ("dpreplication", "numpy", "scipy", "pandas", "matplotlib", "snakemake", "cvxpy", "torch", "opacus")


def config_hash(settings) -> str:
    """SHA256 of the canonical JSON of a figure's settings (its config section)."""
    canonical = json.dumps(settings, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


SOURCE_TREE = ("src/dpreplication", "workflow", "config", "Snakefile")
"""What a published output is computed from, besides data and packages."""


def _git(*arguments: str, cwd: str | Path = ".") -> str:
    return subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def git_state(cwd: str | Path = ".") -> dict:
    """``{"commit": HEAD's SHA, "dirty": whether the source tree differs from it}``.

    The commit is ``unknown`` outside git (``dirty`` is then None). Only changes under
    :data:`SOURCE_TREE` count as dirty, so published outputs written into a clean checkout are
    recorded as clean.
    """
    try:
        commit = _git("rev-parse", "HEAD", cwd=cwd)
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", *SOURCE_TREE, cwd=cwd))
    except (OSError, subprocess.CalledProcessError):
        return {"commit": "unknown", "dirty": None}
    return {"commit": commit, "dirty": dirty}


def source_tree_hash(root: str | Path = ".") -> str:
    """SHA256 over the sorted (path, SHA256 of content) of every file under :data:`SOURCE_TREE` (caches excluded).

    Equal hashes mean the outputs were computed by the same code and config.
    """
    root = Path(root)
    digest = hashlib.sha256()
    for entry in SOURCE_TREE:
        base = root / entry
        files = [base] if base.is_file() else sorted(f for f in base.rglob("*") if f.is_file())
        for file in files:
            if "__pycache__" in file.parts or file.suffix == ".pyc":
                continue
            digest.update(
                f"{file.relative_to(root).as_posix()}\0{hashlib.sha256(file.read_bytes()).hexdigest()}\n".encode()
            )
    return digest.hexdigest()


def package_versions() -> dict[str, str]:
    """Return ``{package: installed version}`` for the packages a sidecar records; absent ones are left out."""
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def package_calls(script: str | Path) -> list[str]:
    """Return the ``dpreplication`` functions a script calls, as dotted names in source order.

    Each is ``module.function``, called through an imported module or as a directly imported
    function, and listed once.
    """
    tree = ast.parse(Path(script).read_text())
    imported = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpreplication")
        for alias in node.names
    }
    calls = []
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)):
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            name = imported.get(function.value.id) and f"{imported[function.value.id]}.{function.attr}"
        else:
            name = imported.get(function.id) if isinstance(function, ast.Name) else None
        if name and name not in calls:
            calls.append(name)
    return calls


class UnreadableRecord(ValueError):
    """A checksum record or provenance sidecar that is empty, truncated or not what its writer writes."""


_CHECKSUM_LINE = re.compile(r"([0-9a-f]{64}) [ *](\S.*)")
"""One ``sha256sum`` line: 64 hex digits, two spaces (or a space and ``*``), the file name."""


def read_checksums(record: str | Path) -> dict[str, str]:
    """Return the lines of a checksum record ``<file>.sha256`` (``sha256sum`` format): name -> SHA256, in order.

    The first line is the file's own; a published file that no sidecar records (a figure's PNG, a
    scorecard) adds one line per published file it was made from, named relative to the record's
    folder, so ``sha256sum -c`` there checks the file and its sources at once. An empty, truncated or
    other file raises :class:`UnreadableRecord` naming it and the format (it used to raise a bare
    ``IndexError`` that named no file, in every job that read it).
    """
    text = Path(record).read_text(errors="replace")
    lines = [_CHECKSUM_LINE.fullmatch(line) for line in text.splitlines()]
    if not lines or not all(lines) or not text.endswith("\n"):
        found = "empty" if not text.strip() else f"not a sha256sum line (it holds {text[:80]!r})"
        raise UnreadableRecord(
            f"checksum record {record} is {found}: expected one line '<64 hex digits>  <file name>' "
            f"(sha256sum format) per file, as the job that writes {Path(record).name.removesuffix('.sha256')} "
            "records it; delete the record and rerun that job"
        )
    return {line.group(2): line.group(1) for line in lines}


def read_checksum(record: str | Path) -> str:
    """Return the SHA256 a checksum record gives its own file (its first line, :func:`read_checksums`)."""
    return next(iter(read_checksums(record).values()))


def read_sidecar(path: str | Path) -> dict:
    """Return the JSON object of a provenance sidecar (``<output>.json``).

    An empty or truncated file, or one that holds no JSON object, raises :class:`UnreadableRecord`
    naming it (it used to raise a bare ``JSONDecodeError`` that named no file).
    """
    text = Path(path).read_text(errors="replace")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        found = "empty" if not text.strip() else f"not valid JSON, perhaps truncated ({error})"
        raise UnreadableRecord(
            f"provenance sidecar {path} is {found}; delete it and rerun the rule that writes it"
        ) from None
    if not isinstance(record, dict):
        raise UnreadableRecord(f"provenance sidecar {path} holds a {type(record).__name__}, not a JSON object")
    return record


def file_sha256(path: str | Path) -> str:
    """Return the SHA256 of a file's bytes as stored (hex).

    As ``dpreplication.data.fetch.file_sha256``, whose gzip-aware ``content_sha256`` this is not;
    kept here so that a job's bookkeeping does not import the data package.
    """
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def _parameter_value(value) -> str | None:
    """Return a setting as short text, or None where it does not fit on one line.

    What fits: numbers, short strings, short lists (a long numeric grid as its range and length),
    and flat mappings.
    """
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return value if len(value) <= 24 else None
    if isinstance(value, list | tuple) and value:
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            shown = [_parameter_value(v) for v in value]
            return ", ".join(shown) if len(value) <= 4 else f"{shown[0]}…{shown[-1]} ({len(value)} values)"
        if all(isinstance(v, str) for v in value) and len(", ".join(value)) <= 40:
            return ", ".join(value)
        return None
    if isinstance(value, dict) and 0 < len(value) <= 4:
        parts = [(key, _parameter_value(v)) for key, v in value.items()]
        if all(text is not None and not isinstance(value[key], list | dict) for key, text in parts):
            return ", ".join(f"{key} {text}" for key, text in parts)
    return None


def parameter_line(settings: dict | None, *, seed: int | None, profile: str, variant: str = "") -> str:
    """Return the parameters a figure was computed with, as one line.

    The line holds ``profile`` (and ``variant``), each setting that fits (:func:`_parameter_value`)
    as ``key=value``, and the seed. Long grids and nested sections are left to the sidecar's
    ``settings``.
    """
    parts = [f"profile {profile}" + (f", variant {variant}" if variant else "")]
    for key, value in (settings or {}).items():
        text = _parameter_value(value)
        if text is not None:
            parts.append(f"{key}={text}")
    if seed is not None:
        parts.append(f"seed={seed}")
    return " · ".join(parts)


def write_sidecar(
    path: str | Path,
    *,
    settings,
    seed: int | None,
    profile: str,
    outputs,
    variant: str = "",
    rule: str | None = None,
    script: str | Path | None = None,
    ledger: dict | None = None,
    drawing: dict | None = None,
) -> Path:
    """Write ``<output>.json``, the provenance sidecar of an output, and return its path.

    The record holds the rule and script that wrote the output and the package functions the script
    calls, commit and dirty flag, source-tree hash, profile and variant (the output tree of a run
    with changed parameters, ``""`` for a profile's own), config hash, seed, settings, the output
    file names, versions, the machine and the job environment (threads, instruction set) it ran
    with, and :func:`parameter_line` of its settings (shown under the figure or table in the report);
    for an output of private releases, the digest of its privacy ledger; for a figure's table, the
    keyword arguments its drawing function takes besides the tables (``drawing``).
    """
    path = Path(path)
    record = {
        "rule": rule,
        "script": None if script is None else Path(script).as_posix(),
        "calls": [] if script is None else package_calls(script),
        **git_state(),
        "source_tree_hash": source_tree_hash(),
        "profile": profile,
        "variant": variant,
        "config_hash": config_hash(settings),
        "seed": seed,
        "settings": settings,
        "parameters": parameter_line(settings, seed=seed, profile=profile, variant=variant),
        "outputs": [Path(o).name for o in outputs],
        "sha256": {Path(o).name: file_sha256(o) for o in outputs if Path(o).is_file()},
        "python": platform.python_version(),
        "packages": package_versions(),
        "machine": platform.machine(),
        "job_environment": {variable: os.environ.get(variable) for variable in sorted(JOB_ENVIRONMENT)},
    }
    if ledger is not None:
        record["ledger"] = ledger
    if drawing is not None:
        record["drawing"] = drawing
    path.write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n")
    return path


def write_table(
    frame: pd.DataFrame,
    csv_path: str | Path,
    markdown_path: str | Path | None = None,
    latex_path: str | Path | None = None,
) -> None:
    """Write a tidy table as CSV (full float precision) and optionally as Markdown and LaTeX (6 significant digits)."""
    frame.to_csv(csv_path, index=False)
    if markdown_path is not None:
        Path(markdown_path).write_text(frame.to_markdown(index=False, floatfmt=".6g") + "\n")
    if latex_path is not None:
        Path(latex_path).write_text(frame.to_latex(index=False, float_format="%.6g"))
