"""Fetch a dataset file from its canonical URL or an offline mirror, and verify it.

The mirror is a directory laid out as ``<mirror>/<dataset>/<file>``; a file
may be stored there plain or gzip-compressed (``<file>.gz``). Whatever the
source, the local copy is the decompressed content, written atomically only
after its SHA256 matches the catalogue. A missing or corrupt file raises
:class:`DataIntegrityError` naming the file and the expected checksum.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
import urllib.request
from pathlib import Path

from dpreplication.data.catalog import DATASETS, DataFile

MIRROR_ENV = "DPREPLICATION_DATA_MIRROR"
_GZIP_MAGIC = b"\x1f\x8b"


class DataIntegrityError(RuntimeError):
    """A data file is missing or its content does not match the expected SHA256."""


def content_sha256(path: Path) -> str:
    """SHA256 of a file's content, decompressing it first if it is gzip."""
    with open(path, "rb") as raw:
        magic = raw.read(2)
    opener = gzip.open if magic == _GZIP_MAGIC else open
    digest = hashlib.sha256()
    with opener(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected_sha256: str) -> Path:
    """Return ``path`` if its content hash is ``expected_sha256``; raise otherwise."""
    path = Path(path)
    if not path.is_file():
        raise DataIntegrityError(f"data file {path} is missing (expected SHA256 {expected_sha256})")
    actual = content_sha256(path)
    if actual != expected_sha256:
        raise DataIntegrityError(
            f"data file {path} is corrupt: content SHA256 {actual}, expected {expected_sha256}"
        )
    return path


def resolve_mirror(configured: str | os.PathLike | None) -> Path | None:
    """The mirror directory: the environment variable wins over the config key."""
    value = os.environ.get(MIRROR_ENV) or configured
    return Path(value) if value else None


def _mirror_source(mirror: Path, dataset: str, data_file: DataFile) -> Path:
    candidates = [mirror / dataset / data_file.name, mirror / dataset / f"{data_file.name}.gz"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise DataIntegrityError(
        f"data file {data_file.name} of {dataset} is not in the mirror {mirror} "
        f"(looked for {', '.join(str(c) for c in candidates)}; expected SHA256 {data_file.sha256})"
    )


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
            try:
                with urllib.request.urlopen(data_file.url, timeout=60) as response, open(fetched, "wb") as out:
                    shutil.copyfileobj(response, out)
            except OSError as error:
                raise DataIntegrityError(
                    f"could not download {data_file.url} for {dataset}/{name} ({error}); set "
                    f"{MIRROR_ENV} or config data.mirror to an offline copy (expected SHA256 {data_file.sha256})"
                ) from error
        plain = Path(scratch) / "plain"
        with open(fetched, "rb") as raw:
            compressed = raw.read(2) == _GZIP_MAGIC
        if compressed:
            with gzip.open(fetched, "rb") as src, open(plain, "wb") as out:
                shutil.copyfileobj(src, out)
        else:
            fetched.rename(plain)
        try:
            verify(plain, data_file.sha256)
        except DataIntegrityError as error:
            source = mirror if mirror is not None else data_file.url
            raise DataIntegrityError(f"{dataset}/{name} from {source}: {error}") from None
        plain.replace(destination)
    return destination
