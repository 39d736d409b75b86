"""Glue between Snakemake scripts and the package: logging, outputs, provenance.

A workflow script is three lines: compute a tidy DataFrame with a package
function and :func:`publish` it (a figure's drawing rule then draws it from what was published). A job rule
that repeats a computation runs a batch of repetitions (:func:`batch_repetitions`) and writes
their rows (:func:`write_rows`), each still seeded by its own repetition index, so the batch size
changes no number.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from dpreplication.pipeline.provenance import (
    UnreadableRecord,
    file_sha256,
    read_checksum,
    read_checksums,
    read_sidecar,
    write_sidecar,
    write_table,
)

if TYPE_CHECKING:  # pandas costs 0.3 CPU-s to import: a job that draws or only starts need not pay it here
    import pandas as pd

LOGS_ROOT = "logs"
"""Every job's ``log:`` lies below ``logs/<tree>/``."""
RECORDS_ROOT = "benchmarks/records"
"""Every job's ``benchmark:`` record lies below ``benchmarks/records/<tree>/``, at its log's path."""
USAGE_SUFFIX = ".usage.json"
"""Suffix of a job's exact resource record, beside its benchmark record (:func:`record_usage`)."""
CHECKSUM = ".sha256"
"""Suffix of an intermediate's checksum record, ``<file>.sha256`` (``sha256sum`` format)."""


def start(snakemake) -> logging.Logger:
    """Send this job's log records (and warnings) to its ``log:`` file; check its inputs' records.

    An input that its job recorded a checksum for (an intermediate's ``<file>.sha256``, or the
    ``sha256`` of a published output's sidecar) must still have it, else :func:`verify_inputs`
    stops the job. On success the job records the checksums of its intermediates.
    """
    handlers = (
        [logging.FileHandler(snakemake.log[0], mode="w")] if snakemake.log else [logging.StreamHandler(sys.stderr)]
    )
    logging.basicConfig(
        level=logging.INFO, handlers=handlers, force=True, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.captureWarnings(True)
    _show_progress_of_long_jobs(snakemake)
    logger = logging.getLogger(snakemake.rule)
    _log_uncaught_exceptions(logger)
    if snakemake.log:
        atexit.register(record_usage, usage_path(snakemake.log[0]))  # runs last: after the checksums
    verify_inputs(getattr(snakemake, "input", []))
    atexit.register(
        _record_on_success,
        [str(path) for path in getattr(snakemake, "output", [])],
        [str(path) for path in getattr(snakemake, "input", [])],
    )
    logger.info(
        "settings: %s", dict(snakemake.params.items()) if hasattr(snakemake.params, "items") else snakemake.params
    )
    return logger


PROGRESS_AFTER_S = 30.0
"""A job that has run this long also shows the package's log lines on the terminal (its progress)."""


class RunningFor(logging.Filter):
    """Pass records only once ``seconds`` have passed since the filter was made (the job started)."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds, self.started = seconds, time.monotonic()

    def filter(self, record: logging.LogRecord) -> bool:
        """Return whether the job has run ``seconds`` by the time of ``record``."""
        return time.monotonic() - self.started >= self.seconds


def _show_progress_of_long_jobs(snakemake) -> None:
    """Copy the package's log lines (a teacher trained, a repetition done) to the terminal.

    Only once the job has run :data:`PROGRESS_AFTER_S`, each prefixed with the rule and its
    wildcards; the job's log file has them all.
    """
    package = logging.getLogger("dpreplication")
    for handler in [h for h in package.handlers if any(isinstance(f, RunningFor) for f in h.filters)]:
        package.removeHandler(handler)
    wildcards = " ".join(str(value) for value in getattr(snakemake, "wildcards", []))
    terminal = logging.StreamHandler(sys.stderr)
    terminal.addFilter(RunningFor(PROGRESS_AFTER_S))
    terminal.setFormatter(logging.Formatter(f"[{snakemake.rule}{' ' + wildcards if wildcards else ''}] %(message)s"))
    package.addHandler(terminal)
    package.setLevel(logging.INFO)


def usage_path(log: str | Path) -> Path | None:
    """Where the job logging to ``log`` records its usage: beside its benchmark record.

    ``logs/<tree>/<name>.log`` → ``benchmarks/records/<tree>/<name>.usage.json`` (the workflow
    keeps each rule's benchmark at its log's path, which a test holds); None for a log elsewhere.
    """
    relative = Path(log)
    if relative.is_absolute() or relative.parts[:1] != (LOGS_ROOT,):
        return None
    return Path(RECORDS_ROOT, *relative.parts[1:]).with_suffix(USAGE_SUFFIX)


def record_usage(path: Path | None) -> dict | None:
    """Write this process's exact CPU time and peak memory, its children's included, to ``path``.

    From ``getrusage`` at exit: ``cpu_s`` = user + system seconds of the process (all its threads,
    from interpreter start) and of its waited-for children; ``max_rss_mb`` the largest resident set
    of the process or of any child. Snakemake's own ``benchmark:`` samples a job every 30 s after its
    first 15 s and loses what comes after the last sample; this record loses nothing.
    """
    import resource

    if path is None:
        return None
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    usage = {
        "cpu_s": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
        "user_s": own.ru_utime + children.ru_utime,
        "system_s": own.ru_stime + children.ru_stime,
        "children_cpu_s": children.ru_utime + children.ru_stime,
        "max_rss_mb": max(own.ru_maxrss, children.ru_maxrss) / 1024,  # Linux: KiB
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(usage, indent=1) + "\n")
    return usage


def _log_uncaught_exceptions(logger: logging.Logger) -> None:
    """Write an exception that ends the job into the job's log too, then let it end the job as usual.

    Snakemake shows stderr, but the log file is what remains.
    """
    previous = sys.excepthook

    def hook(kind, value, traceback):
        _FAILED.append(kind)
        logger.critical("the job failed", exc_info=(kind, value, traceback))
        previous(kind, value, traceback)

    sys.excepthook = hook


class IntermediateChanged(RuntimeError):
    """A job's input is not what the job that wrote it recorded."""


_FAILED: list = []
"""Exceptions that ended this job (then no checksum is recorded)."""


def _folders(path: Path) -> tuple[str, ...]:
    """Return the folders of ``path`` below the working directory (the checkout, where jobs run), not above it."""
    return (Path(os.path.relpath(path)) if path.is_absolute() else path).parent.parts


def is_intermediate(path: str | Path) -> bool:
    """Whether ``path`` is a job's intermediate: under a ``work`` folder, and not a sidecar or record."""
    path = Path(path)
    return "work" in _folders(path) and path.suffix not in (".json", CHECKSUM)


def is_published(path: str | Path) -> bool:
    """Whether ``path`` is a published file: under a ``figures`` folder, and not a sidecar or record."""
    path = Path(path)
    return "figures" in _folders(path) and path.suffix not in (".json", CHECKSUM)


def record_checksums(outputs, sources=()) -> list[Path]:
    """Write ``<file>.sha256`` beside each output that no sidecar records; return the records.

    Those are the intermediates and the published files without a sidecar of their own (a
    figure's PNG, a scorecard): the latter's record adds a line per published file among
    ``sources`` (the job's inputs) with its checksum, so a reader can tell that the PNG shows the
    table beside it (:func:`verify_inputs`).
    """
    records = []
    published_sources = [Path(p) for p in sources if "figures" in _folders(Path(p)) and Path(p).is_file()]
    for path in (Path(p) for p in outputs if Path(p).is_file()):
        if is_intermediate(path):
            made_from = []
        elif is_published(path) and _sidecar_checksum(path) is None:
            made_from = published_sources
        else:
            continue
        lines = [f"{file_sha256(file)}  {os.path.relpath(file, path.parent)}" for file in [path, *made_from]]
        record = path.with_name(path.name + CHECKSUM)
        record.write_text("\n".join(lines) + "\n")
        records.append(record)
    return records


def _record_on_success(outputs, inputs) -> None:
    if not _FAILED:
        record_checksums(outputs, inputs)


def sidecar_of(path: Path) -> Path:
    """Return the provenance sidecar that would record ``path``: ``<stem>.json``, the stem before any dot.

    ``fig3_lr.csv`` and its ledger ``fig3_lr.ledger.csv`` are both recorded in ``fig3_lr.json``.
    """
    return path.with_name(path.name.split(".", 1)[0] + ".json")


def recorded_checksum(path: Path) -> tuple[str, str] | None:
    """Return ``(sha256, where recorded)`` for ``path``, or None where no job recorded one.

    A record or sidecar that is empty or truncated raises
    :class:`~dpreplication.pipeline.provenance.UnreadableRecord` naming it, and so does the sidecar
    of another output put in ``path``'s sidecar's place (its ``outputs`` name none of ``<stem>.*``),
    or one that names ``path`` but whose ``sha256`` of it was removed.
    """
    record = path.with_name(path.name + CHECKSUM)
    if record.is_file():
        return read_checksum(record), str(record)
    return _sidecar_checksum(path)


def _sidecar_checksum(path: Path) -> tuple[str, str] | None:
    """Return ``(sha256, sidecar)`` where ``path``'s provenance sidecar records it, else None."""
    sidecar = sidecar_of(path)
    if path.suffix != ".json" and sidecar.is_file():
        recorded = read_sidecar(sidecar)
        if "outputs" not in recorded:
            return None  # a table's own JSON, not a sidecar
        if not any(sidecar_of(sidecar.with_name(str(name))) == sidecar for name in recorded["outputs"]):
            raise UnreadableRecord(
                f"provenance sidecar {sidecar} records {recorded['outputs']}, none of them {sidecar.stem}.*: the sidecar of "
                f"another output is in its place; rerun the rule that writes {path.name}"
            )
        if path.name not in recorded["outputs"]:
            return None  # not one of the sidecar's outputs (a figure's PNG, drawn by a rule of its own)
        digests = recorded.get("sha256")
        digest = digests.get(path.name) if isinstance(digests, dict) else digests
        if digest is None:
            raise UnreadableRecord(
                f"provenance sidecar {sidecar} names {path.name} but records no sha256 of it; rerun the rule that writes it"
            )
        if not (isinstance(digest, str) and re.fullmatch("[0-9a-f]{64}", digest)):
            raise UnreadableRecord(
                f"provenance sidecar {sidecar}: the sha256 of {path.name} is {digest!r:.80}, not 64 hex digits; "
                "delete it and rerun the rule that writes it"
            )
        return digest, str(sidecar)
    return None


def verify_inputs(inputs) -> None:
    """Raise :class:`IntermediateChanged` if an input differs from the checksum its job recorded.

    An intermediate edited by hand after its job wrote it would otherwise reach a figure, whose
    sidecar would look clean. An intermediate or published file with no record at all (its record
    deleted, or a file no job wrote) is refused too, and so is a PNG or scorecard whose record
    names a source (the table it shows) that has changed since: it is stale.
    """
    for path in (Path(p) for p in inputs if Path(p).is_file()):
        recorded = recorded_checksum(path)
        if recorded is None:
            if is_intermediate(path) or is_published(path):
                raise IntermediateChanged(
                    f"{path} has no checksum record: its job records one ({path.name}{CHECKSUM}, or its sidecar's "
                    f"sha256) when it succeeds, so the record was deleted or no job of this workflow wrote the file; "
                    f"rerun its rule (snakemake --forcerun on that rule, or delete {path})"
                )
            continue
        if (actual := file_sha256(path)) != recorded[0]:
            raise IntermediateChanged(
                f"intermediate file {path} changed after the job that wrote it: content SHA256 "
                f"{actual}, recorded {recorded[0]} in {recorded[1]}; rerun its rule "
                f"(snakemake --forcerun on that rule, or delete {path})"
            )
        _verify_sources(path)


def _verify_sources(path: Path) -> None:
    """Raise :class:`IntermediateChanged` if a source named in ``path``'s record changed since ``path`` was made."""
    record = path.with_name(path.name + CHECKSUM)
    if not record.is_file():
        return
    for name, digest in list(read_checksums(record).items())[1:]:
        source = path.parent / name
        actual = file_sha256(source) if source.is_file() else "absent"
        if actual != digest:
            raise IntermediateChanged(
                f"{path} is stale: it was made from {source} with content SHA256 {digest}, which is now {actual}; "
                f"rerun the rule that writes {path.name}"
            )


def publish(
    snakemake, data: pd.DataFrame, *, drawing: dict | None = None, prefix: str = "", ledger: pd.DataFrame | None = None
) -> None:
    """Write a job's table and its provenance sidecar to the rule's outputs.

    ``data`` goes to ``output.<prefix>csv`` (and ``<prefix>md``, ``<prefix>tex`` where the rule
    declares them), the privacy ledger of its points
    (:func:`~dpreplication.accounting.ledger.ledger_table`) to ``<prefix>ledger``, and the
    provenance sidecar (with the ledger's digest, the line of parameters the table was computed
    with and, for a figure, the keyword arguments of its drawing function) to ``<prefix>json``.
    A figure's drawing rule draws it from these files alone (``workflow/rules/drawing.smk``).
    """
    output = snakemake.output
    write_table(data, output[f"{prefix}csv"], output.get(f"{prefix}md"), output.get(f"{prefix}tex"))
    written = [output[f"{prefix}csv"]]
    digest = None
    if ledger is not None:
        from dpreplication.accounting.ledger import ledger_digest

        ledger.to_csv(output[f"{prefix}ledger"], index=False)
        written.append(output[f"{prefix}ledger"])
        digest = ledger_digest(ledger)
    written += [output[f"{prefix}{kind}"] for kind in ("md", "tex") if f"{prefix}{kind}" in output.keys()]
    write_sidecar(
        output[f"{prefix}json"],
        settings=snakemake.params.get("settings"),
        seed=snakemake.params.get("seed"),
        profile=snakemake.config["profile"],
        variant=snakemake.config.get("variant", ""),
        outputs=written,
        rule=snakemake.rule,
        script=running_script(),
        ledger=digest,
        drawing=drawing,
    )
    logging.getLogger(snakemake.rule).info("wrote %s", ", ".join(str(Path(w)) for w in written))


def running_script() -> str | None:
    """Return the rule script being run, relative to the working directory (None outside a ``script:`` job).

    Snakemake's preamble points ``__main__.__file__`` at the script it copied.
    """
    path = getattr(sys.modules["__main__"], "__file__", None)
    return None if path is None else os.path.relpath(path)


def batch_labels(count: int, size: int) -> list[str]:
    """``range(count)`` cut into consecutive batches of at most ``size``, labelled ``"first-last"``.

    Both ends are included. The labels are the ``repetitions`` wildcard of a batched job rule.

    Raises
    ------
    ValueError
        Unless ``count >= 0`` and ``size >= 1``.
    """
    if count < 0 or size < 1:
        raise ValueError(f"batch_labels: need count >= 0 and size >= 1, got count={count}, size={size}")
    return [f"{start}-{min(start + size, count) - 1}" for start in range(0, count, size)]


def batch_repetitions(label: str) -> range:
    """Return the repetitions of a batch label ``"first-last"`` (inverse of :func:`batch_labels`)."""
    first, last = map(int, label.split("-"))
    if last < first:
        raise ValueError(f"batch label {label!r}: the last repetition precedes the first")
    return range(first, last + 1)


def write_rows(snakemake, frames: Sequence[pd.DataFrame]) -> None:
    """Write a batched job's rows, concatenated in order, to ``output[0]``.

    A batched job (wildcard ``repetitions``, :func:`batch_repetitions`) runs each repetition of its
    batch (and each point of any parameter it batches) from the streams of its own keys, so neither
    the batch size nor the parameters batched change a number, only the job count.
    """
    import pandas as pd

    pd.concat(frames, ignore_index=True).to_csv(snakemake.output[0], index=False)
