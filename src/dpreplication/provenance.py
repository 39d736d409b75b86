"""Provenance sidecars and table writers for every published figure and table.

Volatile facts (commit, versions, time) live in a JSON sidecar beside each
output, never inside image bytes, so PNGs and CSVs stay byte-stable.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import pandas as pd

_PACKAGES = ("dpreplication", "numpy", "scipy", "pandas", "matplotlib", "snakemake", "cvxpy", "torch", "opacus")


def config_hash(settings) -> str:
    """SHA256 of the canonical JSON of a figure's settings (its config section)."""
    canonical = json.dumps(settings, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def git_commit(cwd: str | Path = ".") -> str:
    """``git describe --always --dirty`` of the working tree, or ``unknown`` outside git."""
    try:
        return subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=40"],
            cwd=cwd, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def package_versions() -> dict[str, str]:
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def write_sidecar(path: str | Path, *, settings, seed: int | None, profile: str, outputs) -> Path:
    """Write ``<output>.json``: commit, profile, config hash, seed, settings and versions."""
    path = Path(path)
    record = {
        "commit": git_commit(),
        "profile": profile,
        "config_hash": config_hash(settings),
        "seed": seed,
        "settings": settings,
        "outputs": [Path(o).name for o in outputs],
        "python": platform.python_version(),
        "packages": package_versions(),
    }
    path.write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n")
    return path


def write_table(frame: pd.DataFrame, csv_path: str | Path, markdown_path: str | Path | None = None,
                latex_path: str | Path | None = None) -> None:
    """Write a tidy table as CSV (full float precision) and optionally as Markdown and LaTeX (6 significant digits)."""
    frame.to_csv(csv_path, index=False)
    if markdown_path is not None:
        Path(markdown_path).write_text(frame.to_markdown(index=False, floatfmt=".6g") + "\n")
    if latex_path is not None:
        Path(latex_path).write_text(frame.to_latex(index=False, float_format="%.6g"))
