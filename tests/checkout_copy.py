"""A copy of this checkout's source files, tracked and untracked (not ignored), without outputs:
where a test runs the workflow or edits the source without touching the working tree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOT_COPIED = ("figures/", "results/", "logs/", "benchmarks/records/", "report.html", "tests/references/")
"""Outputs and references: the copy makes its own."""


def copy_checkout(target: Path) -> Path:
    """Copy the checkout's source files into ``target`` (created as needed) and return it."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in (n.decode() for n in listed if n):
        if not name.startswith(NOT_COPIED) and (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, target / name)
    return target
