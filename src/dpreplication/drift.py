"""Drift check: regenerated figure data and images against committed references.

The primary gate compares every reference CSV with the regenerated one,
numeric columns within ``rtol``/``atol`` (per-table overrides in the
tolerance file), other columns exactly. The secondary gate compares PNGs by
RMS pixel difference. Every problem names the figure, the column and the
tolerance. Command line::

    python -m dpreplication.drift check  results/quick/figures tests/references/quick
    python -m dpreplication.drift update results/quick/figures tests/references/quick
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

TOLERANCES = "tolerances.yaml"
DEFAULT_TOLERANCES = {"default": {"rtol": 1e-9, "atol": 1e-12}, "png_rms": 2.0, "tables": {}}


def load_tolerances(reference_dir: Path) -> dict:
    """Return the :data:`TOLERANCES` file of ``reference_dir`` laid over :data:`DEFAULT_TOLERANCES`.

    Keys absent from the file keep their defaults, also inside ``default`` (a file that sets only
    ``rtol`` keeps the default ``atol``); an empty ``tables:`` means no per-table override.
    """
    path = Path(reference_dir) / TOLERANCES
    loaded = (yaml.safe_load(path.read_text()) if path.is_file() else None) or {}
    merged = {**DEFAULT_TOLERANCES, **loaded}
    default = {**DEFAULT_TOLERANCES["default"], **(loaded.get("default") or {})}
    merged["default"] = {key: float(value) for key, value in default.items()}
    merged["tables"] = loaded.get("tables") or {}
    return merged


def compare_tables(name: str, reference: pd.DataFrame, produced: pd.DataFrame, rtol: float, atol: float) -> list[str]:
    """Problems found comparing two versions of the table ``name`` (empty when they agree)."""
    if list(reference.columns) != list(produced.columns):
        return [f"{name}: columns changed from {list(reference.columns)} to {list(produced.columns)}"]
    if len(reference) != len(produced):
        return [f"{name}: {len(produced)} rows, reference has {len(reference)}"]
    problems = []
    for column in reference.columns:
        ref, new = reference[column], produced[column]
        if pd.api.types.is_numeric_dtype(ref) and pd.api.types.is_numeric_dtype(new):
            a, b = ref.to_numpy(float), new.to_numpy(float)
            close = np.isclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
            if not close.all():
                worst = int(np.argmax(np.where(close, 0, np.abs(b - a))))
                problems.append(
                    f"{name}: column {column!r} drifted in {int((~close).sum())} rows beyond rtol={rtol:g}, "
                    f"atol={atol:g} (row {worst}: reference {a[worst]!r}, now {b[worst]!r})"
                )
        elif not ref.astype(str).equals(new.astype(str)):
            worst = int(np.flatnonzero(ref.astype(str).to_numpy() != new.astype(str).to_numpy())[0])
            problems.append(
                f"{name}: column {column!r} changed (row {worst}: reference {ref.iloc[worst]!r}, "
                f"now {new.iloc[worst]!r})"
            )
    return problems


def compare_images(name: str, reference: Path, produced: Path, rms_tolerance: float) -> list[str]:
    """Return a problem if the RMS pixel difference (0–255 scale) exceeds ``rms_tolerance`` or the size changed."""
    from matplotlib.image import imread

    a, b = imread(reference), imread(produced)
    if a.shape != b.shape:
        return [f"{name}: image size changed from {a.shape} to {b.shape}"]
    rms = float(np.sqrt(np.mean((255.0 * (a.astype(float) - b.astype(float))) ** 2)))
    return [f"{name}: image differs by RMS {rms:.3f} > {rms_tolerance:g}"] if rms > rms_tolerance else []


def check(produced_dir: Path, reference_dir: Path) -> list[str]:
    """Every reference CSV and PNG must be regenerated and agree within its tolerance."""
    produced_dir, reference_dir = Path(produced_dir), Path(reference_dir)
    tolerances = load_tolerances(reference_dir)
    references = sorted(p for p in reference_dir.rglob("*") if p.suffix in (".csv", ".png"))
    if not references:
        return [f"no references under {reference_dir}"]
    problems = []
    for reference in references:
        relative = reference.relative_to(reference_dir)
        name = str(relative.with_suffix(""))
        produced = produced_dir / relative
        if not produced.is_file():
            problems.append(f"{name}: {produced} was not regenerated")
        elif reference.suffix == ".csv":
            tol = {**tolerances["default"], **tolerances["tables"].get(name, {})}
            problems += compare_tables(
                name,
                pd.read_csv(reference, keep_default_na=False, na_values=[""]),
                pd.read_csv(produced, keep_default_na=False, na_values=[""]),
                float(tol["rtol"]),
                float(tol["atol"]),
            )
        else:
            problems += compare_images(name, reference, produced, float(tolerances["png_rms"]))
    return problems


def update(produced_dir: Path, reference_dir: Path) -> int:
    """Replace the references by the regenerated CSVs and PNGs; keep the tolerance file."""
    produced_dir, reference_dir = Path(produced_dir), Path(reference_dir)
    for old in reference_dir.rglob("*"):
        if old.suffix in (".csv", ".png"):
            old.unlink()
    copied = 0
    for source in sorted(produced_dir.rglob("*")):
        if source.suffix in (".csv", ".png"):
            target = reference_dir / source.relative_to(produced_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            copied += 1
    return copied


def main(argv=None) -> int:
    """Run the command line (``check`` or ``update``, see the module docstring); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["check", "update"])
    parser.add_argument("produced", type=Path, help="regenerated figures, e.g. results/quick/figures")
    parser.add_argument("reference", type=Path, help="committed references, e.g. tests/references/quick")
    args = parser.parse_args(argv)
    if args.action == "update":
        print(f"updated {update(args.produced, args.reference)} reference files in {args.reference}")
        return 0
    problems = check(args.produced, args.reference)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"drift check: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
