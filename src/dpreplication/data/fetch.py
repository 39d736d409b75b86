"""Fetch a dataset file from its canonical URL or an offline mirror, and verify it.

The mirror is a directory laid out as ``<mirror>/<dataset>/<file>`` (the dataset's
``mirror_directory`` where the catalogue names one); a file may be stored there plain or
gzip-compressed (``<file>.gz``). Without a mirror, the canonical URL is tried first, then the
catalogue's alternate URLs. Whatever the source, the local copy is the decompressed content,
written atomically only after its SHA256 matches the catalogue. A missing or corrupt file raises
:class:`DataIntegrityError` naming the file and the expected checksum.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from dpreplication.data.catalog import DATASETS, DataFile

MIRROR_ENV = "DPREPLICATION_DATA_MIRROR"
_GZIP_MAGIC = b"\x1f\x8b"


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


def verify(path: Path, expected_sha256: str, label: str | None = None, remedy: str = "") -> Path:
    """Return ``path`` if the SHA256 of its bytes is ``expected_sha256``; raise otherwise.

    The error names the file as ``label`` (e.g. its source, where ``path`` is a temporary copy)
    and appends ``remedy``.

    The bytes are hashed as stored: local copies are decompressed at fetch time, so a gzip file
    (even one of the right content) or a truncated one is corrupt here, never a decoding error.
    """
    path = Path(path)
    name = label or str(path)
    if not path.is_file():
        raise DataIntegrityError(f"data file {name} is missing (expected SHA256 {expected_sha256}){remedy}")
    actual = file_sha256(path)
    if actual != expected_sha256:
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == _GZIP_MAGIC
        packed = " (it is gzip-compressed; local copies are stored decompressed)" if gzipped else ""
        raise DataIntegrityError(
            f"data file {name} is corrupt{packed}: content SHA256 {actual}, expected {expected_sha256}{remedy}"
        )
    return path


def catalogued(path: str | os.PathLike) -> DataFile | None:
    """Return the catalogue entry of a raw file stored as ``<directory>/<dataset>/<file>``, or None."""
    path = Path(path)
    dataset = DATASETS.get(path.parent.name)
    if dataset is None:
        return None
    try:
        return dataset.file(path.name)
    except KeyError:
        return None


def verified(path: str | os.PathLike) -> Path:
    """Return a raw data file's path, checked as it is read.

    A catalogued file whose bytes no longer match its
    SHA256 (corrupted after its fetch) stops the run naming the file, the expected checksum and the
    fix. Files outside the catalogue (a user's own extract) are returned unchecked.

    Every read hashes the whole file (≈ 0.2 s for all ≈ 125 MB of raw data; a stamp of size and
    mtime would miss a same-size rewrite whose mtime was restored).
    """
    entry = catalogued(path)
    if entry is None:
        return Path(path)
    return verify(Path(path), entry.sha256, remedy=f"; delete {path} and rerun to fetch it again")


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


def _download(data_file: DataFile, dataset: str, target: Path) -> None:
    """Download the canonical URL, else each alternate in turn; raise naming every failure."""
    failures = []
    for url in (data_file.url, *data_file.alternate_urls):
        try:
            with urllib.request.urlopen(url, timeout=60) as response, open(target, "wb") as out:
                shutil.copyfileobj(response, out)
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


def fetch(dataset: str, name: str, destination: str | os.PathLike, mirror: str | os.PathLike | None = None) -> Path:
    """Copy ``dataset/name`` from ``mirror`` (or download its URL) to ``destination``, verified."""
    data_file = DATASETS[dataset].file(name)
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent) as scratch:
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
