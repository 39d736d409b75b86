"""The IDX format of MNIST and Fashion-MNIST, read with its header checked.

An IDX file is a big-endian header — the magic number ``0x000008TD`` (``T = 0x08``: unsigned
bytes; ``D``: number of dimensions), then ``D`` 32-bit sizes — followed by the row-major
data. Images are ``0x00000803`` (n × 28 × 28), labels ``0x00000801`` (n). A wrong magic
number, unexpected sizes or a file length that disagrees with the header raise
:class:`IDXFormatError` naming the file. A file the catalogue names is verified against its SHA256
before it is parsed, in whatever folder it lies (:func:`dpreplication.data.fetch.verified`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dpreplication.data.fetch import verified

IMAGES_MAGIC = 0x00000803
LABELS_MAGIC = 0x00000801
IMAGE_SHAPE = (28, 28)


class IDXFormatError(ValueError):
    """An IDX file whose header or length is not what the reader expects."""


def read_idx(path: str | Path, magic: int, item_shape: tuple[int, ...] = ()) -> np.ndarray:
    """Read the uint8 array of an IDX file with magic number ``magic`` and items of ``item_shape``."""
    path = Path(path)
    raw = verified(path).read_bytes()  # a file the catalogue names is checked against its SHA256 first
    dimensions = magic & 0xFF
    header_bytes = 4 * (1 + dimensions)
    if len(raw) < header_bytes:
        raise IDXFormatError(f"{path}: {len(raw)} bytes, too short for an IDX header of {header_bytes} bytes")
    found = int.from_bytes(raw[:4], "big")
    if found != magic:
        raise IDXFormatError(f"{path}: magic number 0x{found:08X}, expected 0x{magic:08X}")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=dimensions, offset=4))
    if shape[1:] != tuple(item_shape):
        raise IDXFormatError(f"{path}: items of shape {shape[1:]}, expected {tuple(item_shape)}")
    expected_length = header_bytes + int(np.prod(shape))
    if len(raw) != expected_length:
        raise IDXFormatError(f"{path}: {len(raw)} bytes, but the header {shape} implies {expected_length}")
    return np.frombuffer(raw, dtype=np.uint8, offset=header_bytes).reshape(shape)


def read_idx_images(path: str | Path) -> np.ndarray:
    """``(n, 28, 28)`` uint8 images of an IDX3 file (magic ``0x00000803``)."""
    return read_idx(path, IMAGES_MAGIC, IMAGE_SHAPE)


def read_idx_labels(path: str | Path) -> np.ndarray:
    """``(n,)`` uint8 labels of an IDX1 file (magic ``0x00000801``)."""
    return read_idx(path, LABELS_MAGIC)


def load_image_classification(images: str | Path, labels: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Images and labels of one split; their counts must agree."""
    x, y = read_idx_images(images), read_idx_labels(labels)
    if x.shape[0] != y.shape[0]:
        raise IDXFormatError(f"{images} holds {x.shape[0]} images but {labels} holds {y.shape[0]} labels")
    return x, y
