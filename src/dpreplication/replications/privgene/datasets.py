"""PrivGene's datasets (Table 2 of Zhang et al., SIGMOD 2013; spec ``privgene.md`` §5–§6).

:data:`DATASETS` states each dataset as the paper gives it, the files our copy is built from and
the substitute where the paper's data cannot be had; :func:`prepare_dataset` encodes and scales one
of them from its verified files; :func:`table2` sets our copies beside the paper's numbers. Seeded
steps (BR's class balancing, the image pixels) draw from ``seeding.generator(seed, "privgene",
"data", name)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpreplication import seeding
from dpreplication.data import tabular
from dpreplication.data.fetch import verified
from dpreplication.replications.privgene import PAPER


@dataclass(frozen=True)
class DatasetSpec:
    """A Table-2 dataset: the paper's facts, the files it is built from and any substitution."""

    name: str
    task: str  # the paper's task column
    paper_n: int
    paper_d: int
    catalog: str | None  # key of dpreplication.data.catalog (None: bundled image)
    files: tuple[str, ...]
    substitute: str = ""
    our_task: str = ""  # what our copy predicts, where it differs from the paper's task
    short_label: str = ""  # the substitute in a few words (figure titles)


US_SUBSTITUTE = (
    "IPUMS-International US extract not redistributable: NIST excerpt of the 2019 ACS "
    "(public domain), people with a reported income, label PINCP > 25,000 USD, 57 features"
)
BR_SUBSTITUTE = (
    "IPUMS-International Brazil extract not redistributable and not supplied: raw UCI Adult, "
    "class-balanced (all >50K rows + as many others, seeded), 52 features; a balanced census income "
    "task like BR (50.6 % positive), not Brazilian data"
)
IMAGE_SUBSTITUTE = (
    "SIPU 'house' RGB set unavailable: 34,112 pixels drawn (seeded) from scikit-learn's bundled "
    "china.jpg, 0-255 scaled to [-1, 1]"
)

DATASETS: dict[str, DatasetSpec] = {
    "Adult": DatasetSpec("Adult", "income > 50k USD/yr", 48842, 124, "adult_libsvm", ("a9a", "a9a.t")),
    "Banking": DatasetSpec("Banking", "term deposit", 45211, 33, "bank", ("bank-full.csv",)),
    "US": DatasetSpec(
        "US",
        "income > 25k USD/yr",
        40000,
        58,
        "census_us_acs",
        ("national2019.csv",),
        US_SUBSTITUTE,
        "personal income PINCP > 25k USD/yr (ACS 2019)",
        "ACS 2019 substitute",
    ),
    "BR": DatasetSpec(
        "BR",
        "income > 300 USD/month",
        38000,
        53,
        "uci_adult",
        ("adult.data", "adult.test"),
        BR_SUBSTITUTE,
        "income > 50k USD/yr (UCI Adult, balanced)",
        "balanced UCI Adult stand-in",
    ),
    "Lifesci": DatasetSpec("Lifesci", "k-means, k = 3, 5", 26733, 10, "lifesci", ("ds1.10.csv",)),
    "Image": DatasetSpec(
        "Image", "k-means, k = 10, 15", 34112, 3, None, (), IMAGE_SUBSTITUTE, short_label="china.jpg pixels substitute"
    ),
}
"""Table 2 of the paper, with the source of each of our copies."""


def prepare_dataset(
    name: str, paths, seed: int, *, scaling: str, us_income_threshold: float, br_extract: str | None, image_pixels: int
) -> tabular.TabularData:
    """Encode and scale one Table-2 dataset from its verified files (spec §6).

    Parameters
    ----------
    paths : sequence of path
        The catalogue files of :data:`DATASETS` in order.
    br_extract : str or None
        A path: replaces the BR stand-in by a user-supplied IPUMS Brazil extract (38,000 × 53,
        label last).
    """
    spec = DATASETS[name]
    paths = [verified(path) for path in paths]  # a raw file corrupted after its fetch stops here, named
    rng = seeding.generator(seed, PAPER, "data", name)
    substitute = spec.substitute
    if name == "Adult":
        encoded, source = tabular.encode_a9a(*paths), "LIBSVM a9a + a9a.t"
    elif name == "Banking":
        encoded, source = tabular.encode_bank(*paths), "UCI bank-full.csv"
    elif name == "US":
        encoded, source = tabular.encode_acs_income(*paths, threshold=us_income_threshold), "NIST ACS 2019 excerpt"
    elif name == "BR" and br_extract:
        encoded, source, substitute = (
            tabular.encode_user_extract(br_extract),
            f"user extract {Path(br_extract).name}",
            "",
        )
    elif name == "BR":
        encoded, source = tabular.encode_adult_balanced(*paths, rng), "UCI adult.data + adult.test (balanced)"
    elif name == "Lifesci":
        encoded, source = tabular.encode_lifesci(*paths), "komarix ds1.10.csv"
    elif name == "Image":
        encoded = tabular.encode_image_pixels(tabular.bundled_image(), rng, image_pixels)
        source = f"scikit-learn {tabular.IMAGE_NAME}"
    else:
        raise KeyError(f"unknown PrivGene dataset {name!r}; known: {sorted(DATASETS)}")
    features = tabular.scale_to_unit_box(encoded, scaling)
    return tabular.TabularData(name, features, encoded.labels, encoded.columns, source, substitute)


def table2(data: dict[str, tabular.TabularData]) -> pd.DataFrame:
    """Table 2 regenerated from the loaded data, beside the paper's values (spec §5)."""
    rows = []
    for name, item in data.items():
        spec = DATASETS[name]
        rows.append(
            {
                "dataset": name,
                "n": item.features.shape[0],
                "d": item.dimensionality,
                "task": spec.task,
                "our_task": spec.our_task if item.substitute and spec.our_task else spec.task,
                "positive_rate": np.nan if item.labels is None else float(np.mean(item.labels)),
                "paper_n": spec.paper_n,
                "paper_d": spec.paper_d,
                "n_ratio": item.features.shape[0] / spec.paper_n,
                "d_difference": item.dimensionality - spec.paper_d,
                "feature_min": float(item.features.min()),
                "feature_max": float(item.features.max()),
                "source": item.source,
                "substitute": item.substitute or "none (the paper's data)",
            }
        )
    return pd.DataFrame(rows)
