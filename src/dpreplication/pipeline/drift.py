"""Drift check: regenerated figure data and images against committed references.

Every output belongs to one of two classes, declared in the references' tolerance file:

* **exact** — computed in float64 by NumPy, SciPy, HiGHS and OpenBLAS under the pinned instruction
  set: the same bits on every x86-64-v3 machine. Numeric columns agree within ``rtol``/``atol``
  (default 1e-9/1e-12, per-table overrides under ``tables:``), other columns exactly, PNGs within an
  RMS pixel difference.
* **trained** — tables of float32 models trained by PyTorch (the DaRRM teachers) and the scorecards
  that restate them. A kernel's rounding differs between CPUs and training amplifies it, so each
  numeric column (each row, for a table with a ``key``; a scorecard's value as far as the column
  its claim reads) may move by ``safety_factor`` times the
  largest deviation measured across instruction sets (:data:`SPREAD`, written by ``measure``
  from runs under :data:`dpreplication.pipeline.instruction_sets.INSTRUCTION_SETS`). A column that did not
  move under any instruction set stays exact, and labels always compare exactly.

Every problem names the class, the figure, the column and the tolerance. Command line::

    python -m dpreplication.pipeline.drift check   results/quick/figures tests/references/quick
    python -m dpreplication.pipeline.drift update  results/quick/figures tests/references/quick
    python -m dpreplication.pipeline.drift measure tests/references/quick x86-64-v2=results/isa-x86-64-v2/figures ...
    python -m dpreplication.pipeline.drift page    tests/references/quick docs/reproducibility.md
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from dpreplication.pipeline.jobs import verify_inputs

TOLERANCES = "tolerances.yaml"
DEFAULT_TOLERANCES = {"default": {"rtol": 1e-9, "atol": 1e-12}, "png_rms": 2.0, "tables": {}, "trained": {}}
SPREAD = "instruction_sets.csv"
"""The measured spread across instruction sets, beside the references (written by ``measure``)."""
SPREAD_COLUMNS = ["table", "column", "key", "instruction_set", "rows", "rows_differing", "max_abs_diff"]


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
    merged["trained"] = loaded.get("trained") or {}
    return merged


def trained_tables(tolerances: dict) -> dict[str, list[str]]:
    """``{table: key columns}`` of the trained class (an empty list: tolerances per column)."""
    declared = tolerances["trained"].get("tables") or {}
    return {name: list((settings or {}).get("key") or []) for name, settings in declared.items()}


CLAIM_REGISTRIES = Path(__file__).resolve().parents[3] / "workflow" / "claims"
"""The scorecard's claim registries, one ``<paper>.yaml`` per paper."""


def restated_columns(tolerances: dict) -> dict[str, str]:
    """``{table: column}`` of the trained tables that restate claims (``restates:``, the scorecards)."""
    declared = tolerances["trained"].get("tables") or {}
    return {name: settings["restates"] for name, settings in declared.items() if (settings or {}).get("restates")}


def restated_sources(tolerances: dict) -> dict[str, tuple[str, str, str]]:
    """``{<paper>/<id>: (table, column, row key)}`` of every claim whose value is read from a trained table.

    A scorecard row restates one cell of its claim's table, so it may move as far as that cell: the row
    its selection names in a table with a ``key`` (:func:`row_keys`), the whole column (``""``) otherwise.
    """
    from dpreplication.scorecard import load_registry

    trained = trained_tables(tolerances)
    sources = {}
    for registry in sorted(CLAIM_REGISTRIES.glob("*.yaml")):
        for claim in load_registry(registry):
            table = f"{claim.paper}/{claim.table}"
            if table in trained:
                key = trained[table]
                named = key and all(column in claim.select for column in key)
                row = "/".join(str(claim.select[column]) for column in key) if named else ""
                sources[f"{claim.paper}/{claim.id}"] = (table, claim.column, row)
    return sources


def row_keys(frame: pd.DataFrame, key: list[str]) -> list[str]:
    """Each row's key, its ``key`` columns joined by ``/`` (``""`` for every row when there is no key)."""
    if not key:
        return [""] * len(frame)
    return frame[key].astype(str).agg("/".join, axis=1).tolist()


def read_spread(reference_dir: Path) -> pd.DataFrame:
    """Return the measured cross-instruction-set spread of the references (:data:`SPREAD`; empty if none)."""
    path = Path(reference_dir) / SPREAD
    if not path.is_file():
        return pd.DataFrame(columns=SPREAD_COLUMNS)
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"key": str}).fillna({"key": ""})


def allowed_deviations(spread: pd.DataFrame, safety_factor: float) -> dict[tuple[str, str, str], float]:
    """``{(table, column, key): safety_factor × largest measured |deviation|}`` over the instruction sets.

    Rounded up to two significant digits; only finite deviations that moved are listed (a label that
    changed, or a number that became NaN, is never tolerated).
    """
    deviation = spread.max_abs_diff.astype(float)
    moved = spread[np.isfinite(deviation) & (deviation > 0)]
    largest = moved.groupby(["table", "column", "key"]).max_abs_diff.max()
    return {index: _round_up(safety_factor * float(value)) for index, value in largest.items()}


def _round_up(value: float) -> float:
    """``value`` rounded up to two significant digits."""
    scale = 10.0 ** (math.floor(math.log10(value)) - 1)
    return math.ceil(round(value / scale, 9)) * scale


def labels_changed(reference: pd.Series, produced: pd.Series) -> np.ndarray:
    """Whether each row's label differs, as text; two empty cells are equal."""
    return reference.fillna("").astype(str).to_numpy() != produced.fillna("").astype(str).to_numpy()


def compare_tables(
    name: str,
    reference: pd.DataFrame,
    produced: pd.DataFrame,
    rtol: float,
    atol: float,
    allowed: dict[tuple[str, str], float] | None = None,
    key: list[str] | None = None,
) -> list[str]:
    """Problems found comparing two versions of the table ``name`` (empty when they agree).

    ``allowed`` makes it a trained table: ``{(column, row key): largest |deviation|}`` raises the
    absolute tolerance of those cells (row key ``""`` for a whole column; rows keyed by ``key``).
    """
    label = "exact" if allowed is None else "trained"
    if list(reference.columns) != list(produced.columns):
        return [f"[{label}] {name}: columns changed from {list(reference.columns)} to {list(produced.columns)}"]
    if len(reference) != len(produced):
        return [f"[{label}] {name}: {len(produced)} rows, reference has {len(reference)}"]
    keys = row_keys(reference, key or [])
    problems = []
    for column in reference.columns:
        ref, new = reference[column], produced[column]
        if pd.api.types.is_numeric_dtype(ref) and pd.api.types.is_numeric_dtype(new):
            a, b = ref.to_numpy(float), new.to_numpy(float)
            cell_atol = np.array(
                [max(atol, (allowed or {}).get((column, k), (allowed or {}).get((column, ""), 0.0))) for k in keys]
            )
            close = np.isclose(b, a, rtol=rtol, atol=cell_atol, equal_nan=True)
            if not close.all():
                worst = int(np.argmax(np.where(close, 0, np.abs(b - a))))
                measured = " (measured across instruction sets)" if cell_atol[worst] > atol else ""
                problems.append(
                    f"[{label}] {name}: column {column!r} drifted in {int((~close).sum())} rows beyond rtol={rtol:g}, "
                    f"atol={cell_atol[worst]:g}{measured} (row {worst}{' ' + keys[worst] if keys[worst] else ''}: "
                    f"reference {a[worst].item()!r}, now {b[worst].item()!r})"
                )
        elif (changed := labels_changed(ref, new)).any():
            worst = int(np.flatnonzero(changed)[0])
            problems.append(
                f"[{label}] {name}: column {column!r} changed (row {worst}: reference {ref.iloc[worst]!r}, "
                f"now {new.iloc[worst]!r})"
            )
    return problems


def image_rms(reference: Path, produced: Path) -> float:
    """RMS pixel difference (0–255 scale) of two PNGs of one size (``inf`` if the sizes differ)."""
    from matplotlib.image import imread

    verify_inputs([reference, produced])
    a, b = imread(reference), imread(produced)
    if a.shape != b.shape:
        return math.inf
    return float(np.sqrt(np.mean((255.0 * (a.astype(float) - b.astype(float))) ** 2)))


def compare_images(name: str, reference: Path, produced: Path, rms_tolerance: float, label: str = "exact") -> list[str]:
    """Return a problem if the RMS pixel difference exceeds ``rms_tolerance`` or the size changed."""
    rms = image_rms(reference, produced)
    if math.isinf(rms):
        return [f"[{label}] {name}: image size changed"]
    return [f"[{label}] {name}: image differs by RMS {rms:.3f} > {rms_tolerance:g}"] if rms > rms_tolerance else []


def read_table(path: Path) -> pd.DataFrame:
    """Read a reference or produced CSV: empty cells as NaN and nothing else (``"NA"`` stays a label).

    A produced file is first checked against the checksum its job recorded
    (:func:`~dpreplication.pipeline.jobs.verify_inputs`).
    """
    verify_inputs([path])
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def references(
    reference_dir: Path, only: list[str] | None = None, suffixes: tuple[str, ...] = (".csv", ".png")
) -> list[Path]:
    """Return the reference CSVs and PNGs under ``reference_dir`` (those of the tables ``only`` names, of ``suffixes``)."""
    found = sorted(p for p in Path(reference_dir).rglob("*") if p.suffix in suffixes)
    found = [p for p in found if p.relative_to(reference_dir) != Path(SPREAD)]
    if only is not None:
        found = [p for p in found if str(p.relative_to(reference_dir).with_suffix("")) in only]
    return found


def check(
    produced_dir: Path, reference_dir: Path, only: list[str] | None = None, suffixes: tuple[str, ...] = (".csv", ".png")
) -> list[str]:
    """Return the problems: every reference CSV and PNG must be regenerated and agree within its class's tolerance.

    ``only`` restricts the check to the tables it names (e.g. ``darrm/prediction_teachers``), ``suffixes``
    to data (``(".csv",)``) or pictures.
    """
    produced_dir, reference_dir = Path(produced_dir), Path(reference_dir)
    tolerances = load_tolerances(reference_dir)
    trained, restated = trained_tables(tolerances), restated_columns(tolerances)
    allowed = allowed_deviations(read_spread(reference_dir), float(tolerances["trained"].get("safety_factor", 2)))
    found = references(reference_dir, only, suffixes)
    if not found:
        return [f"no references under {reference_dir}"]
    problems, sources = [], None  # the claims' sources, read from the registries once if needed
    for reference in found:
        relative = reference.relative_to(reference_dir)
        name = str(relative.with_suffix(""))
        produced = produced_dir / relative
        label = "trained" if name in trained else "exact"
        if not produced.is_file():
            problems.append(f"[{label}] {name}: {produced} was not regenerated")
        elif reference.suffix == ".csv":
            tol = {**tolerances["default"], **tolerances["tables"].get(name, {})}
            table_allowed = None
            if name in restated:
                sources = sources if sources is not None else restated_sources(tolerances)
                table_allowed = {(c, k): v for (t, c, k), v in allowed.items() if t == name}  # e.g. a seed SE
                table_allowed |= {
                    (restated[name], claim): allowed[source] for claim, source in sources.items() if source in allowed
                }
            elif name in trained:
                table_allowed = {(c, k): v for (t, c, k), v in allowed.items() if t == name}
            problems += compare_tables(
                name,
                read_table(reference),
                read_table(produced),
                float(tol["rtol"]),
                float(tol["atol"]),
                allowed=table_allowed,
                key=trained.get(name),
            )
        else:
            problems += compare_images(name, reference, produced, float(tolerances["png_rms"]), label)
    return problems


def measure(reference_dir: Path, produced_by_isa: dict[str, Path]) -> pd.DataFrame:
    """Return each run's deviation from the references, one row per moved (table, column or row key, run).

    A row holds the number of rows compared and differing and the largest |deviation|.

    Trained tables with a ``key`` are measured per row, every other table per column; a scorecard's
    restated column is not measured (each claim's value is measured in the table it is read from).
    A label column that changed has no deviation (``max_abs_diff`` empty): it can never be
    tolerated. PNGs are not measured: their parameter line names the variant, and no trained output
    is a figure.
    """
    reference_dir = Path(reference_dir)
    tolerances = load_tolerances(reference_dir)
    trained = trained_tables(tolerances)
    restated = restated_columns(tolerances)
    rows = []
    for isa, produced_dir in produced_by_isa.items():
        for reference in (path for path in references(reference_dir) if path.suffix == ".csv"):
            name = str(reference.relative_to(reference_dir).with_suffix(""))
            produced = Path(produced_dir) / reference.relative_to(reference_dir)
            ref, new = read_table(reference), read_table(produced)
            if list(ref.columns) != list(new.columns) or len(ref) != len(new):
                rows.append([name, "(shape)", "", isa, len(ref), len(ref), np.nan])
                continue
            keys = row_keys(ref, trained.get(name, []))
            for column in ref.columns:
                if pd.api.types.is_numeric_dtype(ref[column]) and pd.api.types.is_numeric_dtype(new[column]):
                    a, b = ref[column].to_numpy(float), new[column].to_numpy(float)
                    with np.errstate(invalid="ignore"):  # inf − inf: equal infinities did not move
                        deviation = np.where((np.isnan(a) & np.isnan(b)) | (a == b), 0.0, np.abs(b - a))
                    deviation = np.where(np.isnan(deviation), np.inf, deviation)
                else:
                    deviation = np.where(labels_changed(ref[column], new[column]), np.nan, 0.0)
                groups = pd.Series(deviation).groupby(keys) if trained.get(name) else [("", pd.Series(deviation))]
                for key, values in groups:
                    moved = ~(values == 0)
                    if restated.get(name) == column:
                        continue  # a claim's value, measured in the table it is read from
                    if moved.any():
                        rows.append([name, column, key, isa, len(values), int(moved.sum()), values.max(skipna=False)])
    return pd.DataFrame(rows, columns=SPREAD_COLUMNS)


PAGE_HEADER = """# Reproducibility across machines

Generated by `make instruction-sets` (`python -m dpreplication.pipeline.drift page`) from
`tests/references/quick/instruction_sets.csv`: do not edit by hand.

Every job runs single-threaded under one pinned instruction set, x86-64-v3
(`dpreplication.pipeline.instruction_sets.INSTRUCTION_SETS`: NumPy, PyTorch's ATen and oneDNN, OpenBLAS on
AVX2 and FMA; MKL on its vendor-independent `COMPATIBLE` branch). To see what the pin protects and
what it cannot, the quick profile was rerun under other instruction sets (`--config
instruction_set=...`) and every reference table compared. The rows below are every (table, column)
that moved under at least one of them; every other column of every table agreed bit for bit.

- **exact** tables moved only because the run was told to use other kernels; under the pin they
  are the same on every x86-64-v3 machine, and the drift check keeps its strict tolerance.
- **trained** tables (the DaRRM teachers, float32 PyTorch) can move on another machine even under
  the pin, so the drift check allows each cell {factor:g} × the largest deviation measured here.
  The scorecards restate them: a claim's value read from a trained table may move as far as the
  column it is read from; no status may move.

"""


def status_sentence(spread: pd.DataFrame) -> str:
    """Say which scorecard statuses, if any, moved under another instruction set."""
    moved = spread[spread.table.str.endswith("scorecard") & (spread.column == "status")]
    if moved.empty:
        return "No claim changed its status under any of them."
    claims = ", ".join(sorted({f"{row.key or row.table} ({row.instruction_set})" for row in moved.itertuples()}))
    return f"Claims whose status changed: {claims}."


def spread_page(reference_dir: Path) -> str:
    """Return the Markdown page of the measured spread: what moved, its class and its tolerance.

    One row per (table, column): the instruction sets that moved it, the rows that differed (the
    most under one instruction set, of the table's rows; a keyed table counts its moved rows), the
    largest deviation, and the drift tolerance that follows (exact: pinned, so the instruction
    sets' deviations do not apply).
    """
    reference_dir = Path(reference_dir)
    tolerances = load_tolerances(reference_dir)
    trained = trained_tables(tolerances)
    spread = read_spread(reference_dir)
    factor = float(tolerances["trained"].get("safety_factor", 2))
    allowed = allowed_deviations(spread, factor)
    lines = [
        PAGE_HEADER.format(factor=factor)
        + f"Instruction sets measured: {', '.join(sorted(set(spread.instruction_set)))}. "
        + status_sentence(spread)
        + "\n",
        "| table | column | class | moved under | rows differing | largest deviation | drift tolerance |",
        "|---|---|---|---|---|---|---|",
    ]
    for (table, column), moved in spread.groupby(["table", "column"], sort=True):
        label = "trained" if table in trained else "exact"
        worst = moved.max_abs_diff.astype(float)
        largest = "label changed" if worst.isna().any() else f"{worst.max():.3g}"
        if label == "exact":
            tolerance = "exact (pinned instruction set)"
        elif worst.isna().any() or not np.isfinite(worst).all():
            tolerance = "exact (a label or NaN never moves)"
        elif trained[table]:
            tolerance = f"per row, up to {max(v for (t, c, _), v in allowed.items() if (t, c) == (table, column)):.2g}"
        else:
            tolerance = f"{allowed[(table, column, '')]:.2g}"
        per_isa = moved.groupby("instruction_set")
        differing = f"{per_isa.rows_differing.sum().max()}"
        if not trained.get(table):
            differing += f" of {per_isa.rows.max().max()}"
        isas = ", ".join(sorted(set(moved.instruction_set)))
        lines.append(f"| {table} | {column} | {label} | {isas} | {differing} | {largest} | {tolerance} |")
    return "\n".join(lines) + "\n"


def update(produced_dir: Path, reference_dir: Path) -> int:
    """Replace the references by the regenerated CSVs and PNGs; keep the tolerance and spread files."""
    produced_dir, reference_dir = Path(produced_dir), Path(reference_dir)
    for old in references(reference_dir):
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
    """Run the command line (``check``, ``update`` or ``measure``, see the module docstring); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="action", required=True)
    for action in ("check", "update"):
        command = commands.add_parser(action)
        command.add_argument("produced", type=Path, help="regenerated figures, e.g. results/quick/figures")
        command.add_argument("reference", type=Path, help="committed references, e.g. tests/references/quick")
        if action == "check":
            command.add_argument("--only", nargs="+", help="check only these tables, e.g. darrm/prediction_teachers")
    command = commands.add_parser("page", help="write the Markdown page of the measured spread")
    command.add_argument("reference", type=Path)
    command.add_argument("page", type=Path, help="e.g. docs/reproducibility.md")
    command = commands.add_parser(
        "measure",
        help="write the spread of the references from runs under other instruction sets or on other machines "
        "(the rows of runs not given here are kept)",
    )
    command.add_argument("reference", type=Path)
    command.add_argument("runs", nargs="+", help="LABEL=FIGURES_DIR, e.g. x86-64-v2=results/isa-x86-64-v2/figures")
    args = parser.parse_args(argv)
    if args.action == "update":
        print(f"updated {update(args.produced, args.reference)} reference files in {args.reference}")
        return 0
    if args.action == "page":
        args.page.write_text(spread_page(args.reference))
        print(f"wrote {args.page}")
        return 0
    if args.action == "measure":
        runs = dict(run.split("=", 1) for run in args.runs)
        spread = measure(args.reference, {isa: Path(path) for isa, path in runs.items()})
        kept = read_spread(args.reference)
        kept = kept[~kept.instruction_set.isin(runs)]  # other runs' rows: another machine's, measured there
        target = args.reference / SPREAD
        pd.concat([kept, spread], ignore_index=True).to_csv(target, index=False)
        print(f"{len(spread)} moved (table, column, run) entries written to {target}, {len(kept)} of other runs kept")
        return 0
    problems = check(args.produced, args.reference, args.only)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"drift check: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
