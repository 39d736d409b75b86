"""Where every dataset comes from, and the checksum that proves it arrived intact.

Each file is named by its canonical public URL and the SHA256 of its
*decompressed* content: some faithful mirrors re-compress gzip files, so only
the content hash is stable. The local copy is always stored decompressed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DataFile:
    """One file of a dataset: its local name, canonical URL and the SHA256 of its decompressed content."""

    name: str
    url: str
    sha256: str
    alternate_urls: tuple[str, ...] = ()
    """Faithful copies tried in order when the canonical ``url`` cannot be downloaded."""
    archive_member: str | None = None
    """When the downloaded ``url`` is a zip archive: the member holding this file's content."""


@dataclass(frozen=True)
class Dataset:
    """A catalogued dataset: its files, citation and licence."""

    key: str
    files: tuple[DataFile, ...]
    citation: str
    licence: str
    mirror_directory: str | None = None
    """Directory of the dataset in the offline mirror, when it differs from ``key``."""

    def file(self, name: str) -> DataFile:
        """Return the file called ``name``; ``KeyError`` listing the known names if there is none."""
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

# MNIST: the canonical page (yann.lecun.com) and the copy torchvision downloads from.
_MNIST_URL = "http://yann.lecun.com/exdb/mnist/"
_MNIST_ALTERNATE_URL = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_MNIST_SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}
_FASHION_MNIST_URL = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
_FASHION_MNIST_SHA256 = {
    "train-images-idx3-ubyte": "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    "train-labels-idx1-ubyte": "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    "t10k-images-idx3-ubyte": "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    "t10k-labels-idx1-ubyte": "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
}

# PrivGene (spec §6): the classification and clustering sets, SHA256 of the decompressed content
# (computed from the offline mirror, which records how each copy was checked against the originals).
_LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
_UCI_ADULT_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
_UCI_CITATION_ADULT = "B. Becker, R. Kohavi. Adult. UCI Machine Learning Repository, 1996. doi:10.24432/C5XW20."
_SDNIST_URL = (
    "https://media.githubusercontent.com/media/usnistgov/SDNist/main/"
    "nist%20diverse%20communities%20data%20excerpts/national/national2019.csv"
)

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
    # DaRRM private prediction (spec §3). The IDX files are stored decompressed; checksums are of the
    # decompressed IDX content (the mirror holds faithful re-compressions and one plain IDX file).
    "mnist": Dataset(
        key="mnist",
        files=tuple(
            DataFile(name, f"{_MNIST_URL}{name}.gz", sha, alternate_urls=(f"{_MNIST_ALTERNATE_URL}{name}.gz",))
            for name, sha in _MNIST_SHA256.items()
        ),
        citation="Y. LeCun, L. Bottou, Y. Bengio, P. Haffner. Gradient-based learning applied to document "
        "recognition. Proc. IEEE 86(11), 1998.",
        licence="none stated upstream; usually cited as CC BY-SA 3.0",
    ),
    "fashion_mnist": Dataset(
        key="fashion_mnist",
        files=tuple(
            DataFile(name, f"{_FASHION_MNIST_URL}{name}.gz", sha) for name, sha in _FASHION_MNIST_SHA256.items()
        ),
        citation="H. Xiao, K. Rasul, R. Vollgraf. Fashion-MNIST: a novel image dataset for benchmarking machine "
        "learning algorithms. arXiv:1708.07747, 2017.",
        licence="MIT",
        mirror_directory="fashion-mnist",
    ),
    # PrivGene: Adult in the LIBSVM a9a (Platt) encoding, 123 binary features (spec §6).
    "adult_libsvm": Dataset(
        key="adult_libsvm",
        files=(
            DataFile("a9a", f"{_LIBSVM_URL}a9a", "f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906"),
            DataFile(
                "a9a.t", f"{_LIBSVM_URL}a9a.t", "1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9"
            ),
        ),
        citation=f"{_UCI_CITATION_ADULT} Binary encoding: J. C. Platt, Fast training of support vector machines "
        "using sequential minimal optimization, 1998; distributed by LIBSVM (Chang & Lin, ACM TIST 2011).",
        licence="CC BY 4.0 (UCI Adult); no separate licence on the LIBSVM page",
        mirror_directory="adult-libsvm",
    ),
    # PrivGene: raw UCI Adult, the source of the balanced public stand-in for the IPUMS BR extract.
    "uci_adult": Dataset(
        key="uci_adult",
        files=(
            DataFile(
                "adult.data",
                f"{_UCI_ADULT_URL}adult.data",
                "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
            ),
            DataFile(
                "adult.test",
                f"{_UCI_ADULT_URL}adult.test",
                "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
            ),
        ),
        citation=_UCI_CITATION_ADULT,
        licence="CC BY 4.0",
        mirror_directory="adult",
    ),
    # PrivGene: UCI Bank Marketing; the canonical download is a zip holding bank-full.csv.
    "bank": Dataset(
        key="bank",
        files=(
            DataFile(
                "bank-full.csv",
                "https://archive.ics.uci.edu/ml/machine-learning-databases/00222/bank.zip",
                "d1513ec63b385506f7cfce9f2c5caa9fe99e7ba4e8c3fa264b3aaf0f849ed32d",
                archive_member="bank-full.csv",
            ),
        ),
        citation="S. Moro, P. Cortez, P. Rita. A data-driven approach to predict the success of bank "
        "telemarketing. Decision Support Systems 62:22-31, 2014. UCI doi:10.24432/C5K306.",
        licence="CC BY 4.0",
    ),
    # PrivGene: the public-domain US substitute for the IPUMS US extract (NIST excerpt of the 2019 ACS).
    # The NIST repository stores it with Git LFS (hence the media URL); the mirror's copy comes from a
    # redistribution that was not byte-compared with NIST's own (see the mirror's MANIFEST).
    "census_us_acs": Dataset(
        key="census_us_acs",
        files=(
            DataFile(
                "national2019.csv", _SDNIST_URL, "cee8c02345dc9e703f7bfd190f6b88d60cce8aa051b1a1da2f076781aa2bc4f6"
            ),
        ),
        citation="C. Task, K. Bhagat, G. Howarth. NIST Diverse Communities Data Excerpts. NIST, 2023 "
        "(2019 ACS 1-year PUMS, US Census Bureau).",
        licence="public domain (US government work)",
        mirror_directory="census-us-acs",
    ),
    # PrivGene k-means: Komarek's life-sciences PCA projection ds1.10 (also GUPT's Lifesci).
    "lifesci": Dataset(
        key="lifesci",
        files=(
            DataFile(
                "ds1.10.csv",
                "http://komarix.org/ac/ds/ds1.10.csv.gz",
                "07bd1de974a5a897efcea0d25a270b762952e3edc01729b12d576303ac7f4eb2",
            ),
        ),
        citation="P. Komarek. Logistic regression for data mining and high-dimensional classification. "
        "PhD thesis, Carnegie Mellon University, 2004.",
        licence="not stated (posted for research use)",
    ),
}
