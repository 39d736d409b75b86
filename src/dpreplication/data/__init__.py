"""Datasets: catalogue (URL + SHA256), verified fetching, and loaders."""

from dpreplication.data.catalog import DATASETS
from dpreplication.data.fetch import DataIntegrityError, fetch, resolve_mirror, verified, verify
from dpreplication.data.loaders import load_dpbench_histogram

__all__ = ["DATASETS", "DataIntegrityError", "fetch", "load_dpbench_histogram", "resolve_mirror", "verified", "verify"]
