"""Where every dataset comes from, and the checksum that proves it arrived intact.

Each file is named by its canonical public URL and the SHA256 of its
*decompressed* content: some faithful mirrors re-compress gzip files, so only
the content hash is stable. The local copy is always stored decompressed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DataFile:
    name: str
    url: str
    sha256: str


@dataclass(frozen=True)
class Dataset:
    key: str
    files: tuple[DataFile, ...]
    citation: str
    licence: str

    def file(self, name: str) -> DataFile:
        for data_file in self.files:
            if data_file.name == name:
                return data_file
        raise KeyError(f"dataset {self.key!r} has no file {name!r}; known: {[f.name for f in self.files]}")


_DPBENCH_COMMIT = "233cfcc380320860ab957003b7b6271e0c2027c1"
_DPBENCH_URL = f"https://raw.githubusercontent.com/dpcomp-org/dpcomp_core/{_DPBENCH_COMMIT}/dpcomp_core/datafiles/1D/"
_DPBENCH_SHA256 = {
    "ADULTFRANK": "d85d9b9fe1ff128820cd103f710200affee71859f721ccb9ecc6e020325e4705",
    "HEPTH": "a39f1283608ac1eae6d1d5bc289e6eb7a42687b765f5f80af1b40566ff853884",
    "INCOME": "2bdb4bb9625d836ad923b280d303860dd12034ef3ae0cf9658e834cb95d8a0c5",
    "MEDCOST": "98ac6a1fb0ccdb0e249a7df49a238145eb971fdbebe1ee805174f99d28ef0dd3",
    "PATENT": "0dac5363cfc1e15189cf00ef3a817dcfeb39678d986b1951ba4f451b1cc6f864",
    "SEARCHLOGS": "183561b0a8bd8a6cdd0622468830aaab491400a7ee58db2f46a4496e9a4e2621",
}

DATASETS: dict[str, Dataset] = {
    "dpbench_1d": Dataset(
        key="dpbench_1d",
        files=tuple(
            DataFile(f"{name}.n4096.npy", f"{_DPBENCH_URL}{name}.n4096.npy", sha)
            for name, sha in _DPBENCH_SHA256.items()
        ),
        citation="Hay, Machanavajjhala, Miklau, Chen, Zhang. Principled evaluation of differentially "
        "private algorithms using DPBench. SIGMOD 2016.",
        licence="research benchmark data; no licence file upstream",
    ),
}
