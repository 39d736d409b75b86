"""Fetch a dataset file from its canonical URL or an offline mirror, and verify it.

The mirror is a directory laid out as ``<mirror>/<dataset>/<file>`` (the dataset's
``mirror_directory`` where the catalogue names one); a file may be stored there plain or
gzip-compressed (``<file>.gz``). Without a mirror, the canonical URL is tried first, then the
catalogue's alternate URLs, each downloaded by pooch with a progress bar and retries. Whatever the source, the local copy is the decompressed content,
written atomically only after its SHA256 matches the catalogue. A missing or corrupt file raises
:class:`DataIntegrityError` naming the file and the expected checksum. Every reader re-verifies
what it reads (:func:`verified`), finding the file's catalogue entry by its name, whatever folder
it lies in.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from dpreplication.data.catalog import DATASETS, DataFile

MIRROR_ENV = "DPREPLICATION_DATA_MIRROR"
_GZIP_MAGIC = b"\x1f\x8b"
SCRATCH_PREFIX = ".fetch-"
"""How the scratch folder of a :func:`fetch` is named: ``.fetch-<pid>-<host>-<random>``."""
STALE_SCRATCH_SECONDS = 3600.0
"""A scratch folder unchanged for this long is a killed fetch's, whatever its process id."""


class DataIntegrityError(RuntimeError):
    """A data file is missing or its content does not match the expected SHA256."""


def _sha256(stream) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: stream.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def content_sha256(path: Path) -> str:
    """SHA256 of a file's content, decompressing it first if it is gzip (a mirror's copy)."""
    with open(path, "rb") as raw:
        magic = raw.read(2)
    opener = gzip.open if magic == _GZIP_MAGIC else open
    with opener(path, "rb") as stream:
        return _sha256(stream)


def file_sha256(path: Path) -> str:
    """SHA256 of a file's bytes as stored (no decompression)."""
    with open(path, "rb") as stream:
        return _sha256(stream)


def _checked(path: Path, expected: dict[str, str], name: str, remedy: str) -> Path:
    """Return ``path`` if the SHA256 of its bytes is one of ``expected`` (``{dataset: sha}``)."""
    shown = " or ".join(f"{sha} ({key})" if len(expected) > 1 else sha for key, sha in expected.items())
    if not path.is_file():
        raise DataIntegrityError(f"data file {name} is missing (expected SHA256 {shown}){remedy}")
    actual = file_sha256(path)
    if actual not in expected.values():
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == _GZIP_MAGIC
        packed = " (it is gzip-compressed; local copies are stored decompressed)" if gzipped else ""
        raise DataIntegrityError(
            f"data file {name} is corrupt{packed}: content SHA256 {actual}, expected {shown}{remedy}"
        )
    return path


def verify(path: Path, expected_sha256: str, label: str | None = None, remedy: str = "") -> Path:
    """Return ``path`` if the SHA256 of its bytes is ``expected_sha256``; raise otherwise.

    The error names the file as ``label`` (e.g. its source, where ``path`` is a temporary copy)
    and appends ``remedy``.

    The bytes are hashed as stored: local copies are decompressed at fetch time, so a gzip file
    (even one of the right content) or a truncated one is corrupt here, never a decoding error.
    """
    return _checked(Path(path), {"": expected_sha256}, label or str(path), remedy)


def catalogued(path: str | os.PathLike, dataset: str | None = None) -> dict[str, DataFile]:
    """Return the catalogue entries a file may be, by dataset key: found by its name, not its folder.

    With ``dataset``, only that dataset's entry (``KeyError`` if it has no file of that name).
    Without, every dataset's file of that name (MNIST and Fashion-MNIST share theirs), narrowed to
    one where the file lies in the layout ``<directory>/<dataset>/<file>``. Empty for a name the
    catalogue does not know.
    """
    path = Path(path)
    if dataset is not None:
        return {dataset: DATASETS[dataset].file(path.name)}
    entries = {
        key: data_file for key, entry in DATASETS.items() for data_file in entry.files if data_file.name == path.name
    }
    if path.parent.name in entries:
        return {path.parent.name: entries[path.parent.name]}
    return entries


def verified(path: str | os.PathLike, dataset: str | None = None) -> Path:
    """Return a raw data file's path, checked as it is read.

    A file the catalogue names (:func:`catalogued`: by its name and ``dataset``, in whatever
    folder) whose bytes do not match its SHA256 stops the run naming the file, the expected
    checksum and the fix. A file whose name the catalogue does not know (a user's own extract) is
    returned unchecked.

    Every read hashes the whole file (≈ 0.2 s for all ≈ 125 MB of raw data; a stamp of size and
    mtime would miss a same-size rewrite whose mtime was restored).
    """
    path = Path(path)
    entries = catalogued(path, dataset)
    if not entries:
        return path
    if path.parent.name in entries:  # the layout of data/raw: the workflow fetches it again
        remedy = f"; delete {path} and rerun to fetch it again"
    else:
        places = " or ".join(f"<data directory>/{key}/{path.name}" for key in entries)
        remedy = f"; replace it by an intact copy (the workflow fetches one into {places})"
    return _checked(path, {key: entry.sha256 for key, entry in entries.items()}, str(path), remedy)


def resolve_mirror(configured: str | os.PathLike | None) -> Path | None:
    """Return the mirror directory: the environment variable wins over the config key."""
    value = os.environ.get(MIRROR_ENV) or configured
    return Path(value) if value else None


def _mirror_candidates(mirror: Path, dataset: str, data_file: DataFile) -> list[Path]:
    folder = mirror / (DATASETS[dataset].mirror_directory or dataset)
    return [folder / data_file.name, folder / f"{data_file.name}.gz"]


def _mirror_source(mirror: Path, dataset: str, data_file: DataFile) -> Path:
    candidates = _mirror_candidates(mirror, dataset, data_file)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise DataIntegrityError(
        f"data file {data_file.name} of {dataset} is not in the mirror {mirror} "
        f"(looked for {', '.join(str(c) for c in candidates)}; expected SHA256 {data_file.sha256})"
    )


DOWNLOAD_RETRIES = 3
"""How often a failed download of one URL is retried (pooch waits 1, 2, 3 s between tries)."""


def _copy_file_url(url: str, output_file: str, pooch) -> None:
    """Copy a ``file://`` URL to ``output_file``: pooch's downloader for a local catalogue entry."""
    shutil.copyfile(urllib.request.url2pathname(urllib.parse.urlparse(url).path), output_file)


def _download(data_file: DataFile, dataset: str, target: Path) -> None:
    """Download the canonical URL, else each alternate in turn; raise naming every failure.

    pooch downloads, with a progress bar and :data:`DOWNLOAD_RETRIES` retries per URL; its own
    hash check is not used, since the catalogue's SHA256 is of the decompressed content, which
    :func:`fetch` checks.
    """
    import pooch

    failures = []
    for url in (data_file.url, *data_file.alternate_urls):
        downloader = _copy_file_url if url.startswith("file:") else pooch.HTTPDownloader(progressbar=True, timeout=60)
        source = pooch.create(
            path=target.parent,
            base_url="",
            registry={target.name: None},
            urls={target.name: url},
            retry_if_failed=DOWNLOAD_RETRIES,
        )
        try:
            source.fetch(target.name, downloader=downloader)
            return
        except OSError as error:
            failures.append(f"{url} ({error})")
    raise DataIntegrityError(
        f"could not download {dataset}/{data_file.name} from {'; '.join(failures)}; set {MIRROR_ENV} or config "
        f"data.mirror to an offline copy (expected SHA256 {data_file.sha256})"
    )


def _url_responds(url: str, timeout: float) -> str | None:
    """``None`` if a HEAD request to ``url`` succeeds, else the error text."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout):
            return None
    except OSError as error:
        return str(error)


def availability(
    dataset: str, directory: str | os.PathLike, mirror: str | os.PathLike | None = None, timeout: float = 10.0
) -> dict:
    """Whether every file of ``dataset`` can be had, without fetching it.

    A file is available when it is already in ``directory/<dataset>/`` (it is verified when
    used), when the mirror holds it (plain or ``.gz``; with a mirror configured, :func:`fetch`
    reads only the mirror), or, without a mirror, when its canonical or an alternate URL answers
    a HEAD request. Returns ``{"dataset", "available", "files": {name: source}, "missing":
    {name: reason}}``. Availability is not integrity: a corrupt file still fails its fetch.
    """
    files, missing = {}, {}
    for data_file in DATASETS[dataset].files:
        local = Path(directory) / dataset / data_file.name
        if local.is_file():
            files[data_file.name] = str(local)
        elif mirror is not None:
            found = [c for c in _mirror_candidates(Path(mirror), dataset, data_file) if c.is_file()]
            if found:
                files[data_file.name] = str(found[0])
            else:
                missing[data_file.name] = f"not in the mirror {mirror}"
        else:
            errors = []
            for url in (data_file.url, *data_file.alternate_urls):
                error = _url_responds(url, timeout)
                if error is None:
                    files[data_file.name] = url
                    break
                errors.append(f"{url}: {error}")
            else:
                missing[data_file.name] = "; ".join(errors)
    return {"dataset": dataset, "available": not missing, "files": files, "missing": missing}


def _extract_member(archive: Path, data_file: DataFile) -> None:
    """Replace the downloaded zip ``archive`` by its member ``data_file.archive_member``."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            content = bundle.read(data_file.archive_member)
    except (zipfile.BadZipFile, KeyError) as error:
        raise DataIntegrityError(
            f"{data_file.url} is not a zip holding {data_file.archive_member} ({error}); "
            f"expected SHA256 of {data_file.name}: {data_file.sha256}"
        ) from None
    archive.write_bytes(content)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname()) or "host"


def scratch_prefix(pid: int | None = None) -> str:
    """Return the name a fetch's scratch folder starts with: ``.fetch-<pid>-<host>-``."""
    return f"{SCRATCH_PREFIX}{os.getpid() if pid is None else pid}-{_host()}-"


def _running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale_scratch(directory: str | os.PathLike, max_age: float = STALE_SCRATCH_SECONDS) -> list[Path]:
    """Remove the scratch folders that killed fetches left in ``directory``; return them.

    A scratch folder ``.fetch-<pid>-<host>-…`` is stale when its process no longer runs (on this
    host), or when neither it nor a file in it changed for ``max_age`` seconds (a process id since
    reused, or another host's). The scratch of a fetch still running is kept.
    """
    removed = []
    for folder in Path(directory).glob(f"{SCRATCH_PREFIX}*"):
        match = re.fullmatch(rf"{re.escape(SCRATCH_PREFIX)}(\d+)-([A-Za-z0-9_]*)-[^-]*", folder.name)
        if match is None or not folder.is_dir():
            continue
        try:
            changed = max(entry.stat().st_mtime for entry in (folder, *folder.iterdir()))
        except OSError:  # its fetch just ended, or it is not ours to read
            continue
        pid, host = int(match.group(1)), match.group(2)
        dead = host == _host() and pid > 0 and not _running(pid)
        if dead or time.time() - changed > max_age:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


class _Stopped(BaseException):
    """SIGTERM or SIGINT received: unwinds the fetch so that its scratch folder is removed."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _cleanup_on_termination():
    """Let SIGTERM (and SIGINT where it would kill outright) unwind the block, then end the process by it.

    Python's default SIGTERM ends the process without running ``finally`` blocks or ``with``
    exits, which would leave the scratch folder. Handlers can only be set in the main thread;
    elsewhere, and for signals the program handles itself, nothing changes.
    """

    def stop(signum, _frame):
        raise _Stopped(signum)

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            if signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, stop)
    try:
        yield
    except _Stopped as stopped:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        previous.clear()
        os.kill(os.getpid(), stopped.signum)  # the default action: the exit status says which signal
        raise SystemExit(128 + stopped.signum) from None
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def fetch(dataset: str, name: str, destination: str | os.PathLike, mirror: str | os.PathLike | None = None) -> Path:
    """Copy ``dataset/name`` from ``mirror`` (or download its URL) to ``destination``, verified.

    The work happens in a scratch folder beside ``destination`` (:func:`scratch_prefix`), removed
    when the fetch ends, fails or is stopped by SIGTERM or SIGINT; one left by a fetch killed
    outright (SIGKILL) is removed by the next fetch into that folder (:func:`remove_stale_scratch`).
    """
    data_file = DATASETS[dataset].file(name)
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_scratch(destination.parent)
    with (
        _cleanup_on_termination(),
        tempfile.TemporaryDirectory(prefix=scratch_prefix(), dir=destination.parent) as scratch,
    ):
        fetched = Path(scratch) / "fetched"
        if mirror is not None:
            shutil.copyfile(_mirror_source(Path(mirror), dataset, data_file), fetched)
        else:
            _download(data_file, dataset, fetched)
            if data_file.archive_member is not None:
                _extract_member(fetched, data_file)
        source = str(_mirror_source(Path(mirror), dataset, data_file)) if mirror is not None else data_file.url
        plain = Path(scratch) / "plain"
        with open(fetched, "rb") as raw:
            compressed = raw.read(2) == _GZIP_MAGIC
        if compressed:
            try:
                with gzip.open(fetched, "rb") as src, open(plain, "wb") as out:
                    shutil.copyfileobj(src, out)
            except (OSError, EOFError) as error:
                raise DataIntegrityError(
                    f"data file {dataset}/{name} from {source} does not decompress ({error}); "
                    f"expected SHA256 of its content {data_file.sha256}"
                ) from None
        else:
            fetched.rename(plain)
        verify(plain, data_file.sha256, label=f"{dataset}/{name} from {source}")
        plain.replace(destination)
    return destination
