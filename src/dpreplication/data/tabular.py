"""Tabular datasets as feature matrices in ``[-1, 1]``: the encodings of PrivGene spec §6.

Each encoder verifies the raw files it reads (files the catalogue names against their SHA256, in
whatever folder they lie: :func:`dpreplication.data.fetch.verified`) and returns an
:class:`Encoded` table: raw numeric features, binary labels (1 = the positive class) or none
(clustering), column names and the *public* bounds of columns whose domain is known without
looking at the data (indicators ``[0, 1]``, pixels ``[0, 255]``; NaN where unknown). Encoders
assert the row and column counts of the source and raise :class:`DataShapeError` naming the
file, the expected and the actual shape.

:func:`scale_to_unit_box` maps every column to ``[-1, 1]`` (spec §6 "Scaling"): min-max
over the whole dataset, as the paper does (its footnote formula is a typo for this), or
the declared public bounds (``bounds="public"``, which refuses columns without them). A
binary column becomes ``{-1, +1}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpreplication.data.fetch import verified


class DataShapeError(ValueError):
    """A source file or an encoded table does not have the expected shape."""


@dataclass(frozen=True)
class Encoded:
    """An encoded table before scaling."""

    features: np.ndarray
    labels: np.ndarray | None
    columns: tuple[str, ...]
    public_lower: np.ndarray = field(repr=False)
    public_upper: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class TabularData:
    """A dataset ready for fitting: features in ``[-1, 1]``, labels in ``{0, 1}`` (or None)."""

    name: str
    features: np.ndarray
    labels: np.ndarray | None
    columns: tuple[str, ...]
    source: str
    substitute: str = ""

    @property
    def dimensionality(self) -> int:
        """Table 2's "dimensionality": features + 1 (the label, or the bias; spec §1)."""
        return self.features.shape[1] + (1 if self.labels is not None else 0)


def check_shape(what: str, actual: tuple, expected: tuple) -> None:
    """Raise :class:`DataShapeError` unless ``actual == expected`` (``None`` entries match anything)."""
    if len(actual) != len(expected) or any(e is not None and a != e for a, e in zip(actual, expected)):
        raise DataShapeError(f"{what}: expected shape {expected}, got {actual}")


def scale_to_unit_box(encoded: Encoded, bounds: str = "dataset") -> np.ndarray:
    """Every column mapped affinely to ``[-1, 1]``: ``2(x - lo)/(hi - lo) - 1`` (spec §6).

    ``bounds="dataset"``: ``lo, hi`` = the column's min and max over all rows (the paper's
    choice), except where a public bound is declared (identical for indicators, which take
    both values). ``bounds="public"``: declared bounds only, values clipped to them; a column
    without declared bounds is an error. A constant column maps to 0.
    """
    x = np.asarray(encoded.features, dtype=float)
    lower, upper = encoded.public_lower.astype(float), encoded.public_upper.astype(float)
    unknown = np.isnan(lower) | np.isnan(upper)
    if bounds == "public" and unknown.any():
        missing = [c for c, u in zip(encoded.columns, unknown) if u]
        raise ValueError(
            f"no public bounds are declared for columns {missing[:5]} (+{max(0, len(missing) - 5)} more); "
            "use bounds='dataset'"
        )
    if bounds not in ("dataset", "public"):
        raise ValueError(f"bounds must be 'dataset' or 'public', got {bounds!r}")
    lower = np.where(unknown, x.min(axis=0), lower)
    upper = np.where(unknown, x.max(axis=0), upper)
    width = upper - lower
    safe = np.where(width > 0, width, 1.0)
    scaled = 2.0 * (np.clip(x, lower, upper) - lower) / safe - 1.0
    scaled[:, width <= 0] = 0.0
    return scaled


def _encoded(frame: pd.DataFrame, labels, public: dict[str, tuple[float, float]]) -> Encoded:
    columns = tuple(frame.columns)
    lower = np.array([public.get(c, (np.nan, np.nan))[0] for c in columns], dtype=float)
    upper = np.array([public.get(c, (np.nan, np.nan))[1] for c in columns], dtype=float)
    return Encoded(
        frame.to_numpy(dtype=float),
        None if labels is None else np.asarray(labels, dtype=np.int8),
        columns,
        lower,
        upper,
    )


def _indicators(values: pd.Series, levels, prefix: str) -> pd.DataFrame:
    """One 0/1 column per level in ``levels`` (other values, e.g. unknown, are all zero)."""
    return pd.DataFrame({f"{prefix}={level}": (values == level).astype(float) for level in levels})


def _unit(columns) -> dict[str, tuple[float, float]]:
    return {c: (0.0, 1.0) for c in columns}


# --------------------------------------------------------------------------- Adult (LIBSVM a9a)

A9A_FEATURES = 123
A9A_ROWS = {"a9a": 32561, "a9a.t": 16281}


def read_libsvm_binary(path: str | Path, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """Read a LIBSVM file with ``±1`` labels and ``index:1`` pairs as a dense 0/1 matrix and 0/1 labels."""
    lines = verified(path).read_text().splitlines()
    labels = np.empty(len(lines), dtype=np.int8)
    matrix = np.zeros((len(lines), n_features))
    for row, line in enumerate(lines):
        label, *pairs = line.split()
        labels[row] = 1 if float(label) > 0 else 0
        indices = [int(pair.split(":")[0]) - 1 for pair in pairs]
        if indices and (min(indices) < 0 or max(indices) >= n_features):
            raise DataShapeError(f"{path}, line {row + 1}: feature index outside 1..{n_features}")
        matrix[row, indices] = [float(pair.split(":")[1]) for pair in pairs]
    return matrix, labels


def encode_a9a(train: str | Path, test: str | Path) -> Encoded:
    """Adult as LIBSVM a9a + a9a.t (Platt's binary encoding, 123 columns; spec §6): 48,842 × 123."""
    parts = []
    for path in (train, test):
        x, y = read_libsvm_binary(path, A9A_FEATURES)
        check_shape(f"{path} (LIBSVM a9a)", x.shape, (A9A_ROWS[Path(path).name], A9A_FEATURES))
        parts.append((x, y))
    features = np.vstack([p[0] for p in parts])
    columns = tuple(f"a9a_{j + 1}" for j in range(A9A_FEATURES))
    return Encoded(
        features, np.concatenate([p[1] for p in parts]), columns, np.zeros(A9A_FEATURES), np.ones(A9A_FEATURES)
    )


# --------------------------------------------------------------------------- Banking

BANK_ROWS = 45211
BANK_JOBS = (
    "admin.",
    "unemployed",
    "management",
    "housemaid",
    "entrepreneur",
    "student",
    "blue-collar",
    "self-employed",
    "retired",
    "technician",
    "services",
)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def encode_bank(path: str | Path) -> Encoded:
    """UCI ``bank-full.csv`` in the spec's 32-column encoding (§6, = DP-AGD's BANK.dat): 45,211 × 32.

    One-hot minus the unknown/reference level (job 11, marital 2, education 3, contact 2,
    poutcome 3), yes-indicators for default/housing/loan, month and day as ``30·month + day``,
    ``pdays`` as a contacted flag plus the value with −1 → 0; label ``y = "yes"``.
    """
    raw = pd.read_csv(verified(path), sep=";")
    check_shape(f"{path} (bank-full.csv)", raw.shape, (BANK_ROWS, 17))
    parts = [
        raw[["age"]].astype(float),
        _indicators(raw.job, BANK_JOBS, "job"),
        _indicators(raw.marital, ("single", "married"), "marital"),
        _indicators(raw.education, ("primary", "secondary", "tertiary"), "education"),
        _indicators(raw.default, ("yes",), "default"),
        raw[["balance"]].astype(float),
        _indicators(raw.housing, ("yes",), "housing"),
        _indicators(raw.loan, ("yes",), "loan"),
        _indicators(raw.contact, ("telephone", "cellular"), "contact"),
        pd.DataFrame({"month_day": 30.0 * (raw.month.map({m: i + 1 for i, m in enumerate(MONTHS)})) + raw.day}),
        raw[["duration", "campaign"]].astype(float),
        pd.DataFrame(
            {"pdays_contacted": (raw.pdays != -1).astype(float), "pdays": raw.pdays.clip(lower=0).astype(float)}
        ),
        raw[["previous"]].astype(float),
        _indicators(raw.poutcome, ("other", "failure", "success"), "poutcome"),
    ]
    frame = pd.concat(parts, axis=1)
    if frame.isna().any().any():
        raise DataShapeError(f"{path}: unexpected month names or missing values")
    check_shape(f"{path} (encoded Banking)", frame.shape, (BANK_ROWS, 32))
    binary = [c for c in frame.columns if "=" in c] + ["pdays_contacted"]
    return _encoded(frame, raw.y.eq("yes"), _unit(binary))


# --------------------------------------------------------------------------- US (ACS substitute)

ACS_ROWS = 27253
ACS_INCOME_ROWS = 23006
ACS_CATEGORICAL = {
    "MSP": range(2, 7),
    "HISP": range(1, 5),
    "RAC1P": range(2, 10),
    "OWN_RENT": (1, 2),
    "EDU": range(2, 13),
    "INDP_CAT": range(0, 19),
}
ACS_DISABILITY = ("DREM", "DPHY", "DEYE", "DEAR")


def encode_acs_income(path: str | Path, threshold: float = 25000.0) -> Encoded:
    """Encode the US substitute (spec §6): NIST's 2019 ACS excerpt, people with a reported income.

    The label is PINCP > threshold.

    57 columns (Table 2's US has 57 + 1): age, female, number of children and family size
    (numeric; not applicable → 0 and 1), disability indicators (remembering, physical,
    vision, hearing), and one-hot codes with the first level as reference: marital status
    (5), Hispanic origin (4), race (8), tenure (2), education (11), industry category (19;
    not employed = all zero). Left out: geography (PUMA, density), household type, the
    mostly missing veteran disability rating, the survey weights, and income-derived
    columns (PINCP decile, poverty ratio), which would leak the label.
    """
    raw = pd.read_csv(verified(path), na_values=["N"], dtype={"PUMA": str})
    check_shape(f"{path} (NIST ACS national2019)", raw.shape, (ACS_ROWS, 24))
    raw = raw[raw.PINCP.notna()].reset_index(drop=True)
    check_shape(f"{path} (rows with a reported income)", raw.shape, (ACS_INCOME_ROWS, 24))
    parts = [
        pd.DataFrame(
            {
                "AGEP": raw.AGEP.astype(float),
                "female": (raw.SEX == 2).astype(float),
                "NOC": raw.NOC.fillna(0.0),
                "NPF": raw.NPF.fillna(1.0),
                **{name: (raw[name] == 1).astype(float) for name in ACS_DISABILITY},
            }
        )
    ]
    parts += [_indicators(raw[name], levels, name) for name, levels in ACS_CATEGORICAL.items()]
    frame = pd.concat(parts, axis=1)
    check_shape(f"{path} (encoded US substitute)", frame.shape, (ACS_INCOME_ROWS, 57))
    binary = [c for c in frame.columns if "=" in c] + ["female", *ACS_DISABILITY]
    return _encoded(frame, raw.PINCP > threshold, _unit(binary))


# --------------------------------------------------------------------------- BR (user extract or substitute)

IPUMS_BR_SHAPE = (38000, 53)
ADULT_ROWS = {"adult.data": 32561, "adult.test": 16281}
ADULT_NAMES = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
ADULT_NUMERIC = ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week")
ADULT_COUNTRIES = (
    "United-States",
    "Mexico",
    "Philippines",
    "Germany",
    "Puerto-Rico",
    "Canada",
    "El-Salvador",
    "India",
    "Cuba",
)
ADULT_LEVELS = {
    "workclass": (
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    ),
    "marital-status": (
        "Married-civ-spouse",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": ("Husband", "Not-in-family", "Own-child", "Unmarried", "Other-relative"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"),
    "sex": ("Male",),
    "native-country": ADULT_COUNTRIES,
}


def read_uci_adult(data: str | Path, test: str | Path) -> pd.DataFrame:
    """``adult.data`` + ``adult.test`` (banner line skipped, labels without the trailing dot): 48,842 rows."""
    frames = []
    for path in (data, test):
        frame = pd.read_csv(
            verified(path),
            header=None,
            names=ADULT_NAMES,
            skipinitialspace=True,
            skiprows=1 if Path(path).name == "adult.test" else 0,
            skip_blank_lines=True,
        )
        check_shape(f"{path} (UCI Adult)", frame.shape, (ADULT_ROWS[Path(path).name], len(ADULT_NAMES)))
        frames.append(frame)
    adult = pd.concat(frames, ignore_index=True)
    adult["income"] = adult.income.str.rstrip(".")
    return adult


def encode_adult_balanced(data: str | Path, test: str | Path, rng: np.random.Generator) -> Encoded:
    """Encode the BR stand-in: raw UCI Adult, class-balanced, 52 columns (so that d = 53 as BR's).

    All 11,687 rows with income > 50K plus as many rows drawn without replacement from the
    others (``rng``): 23,374 rows, 50 % positive (BR: 50.6 %). Columns: five numeric
    attributes (age, education-num, capital gain/loss, hours per week; fnlwgt is a sampling
    weight and education duplicates education-num), and indicators of workclass (8 known
    levels, unknown = all zero), marital status (6, reference Divorced), occupation (14,
    unknown = zero), relationship (5, reference Wife), race (4, reference Black), sex (Male)
    and the nine most frequent native countries (9; others and unknown = zero).
    """
    adult = read_uci_adult(data, test)
    positive = np.flatnonzero(adult.income.eq(">50K").to_numpy())
    negative = np.flatnonzero(adult.income.eq("<=50K").to_numpy())
    if positive.size + negative.size != len(adult):
        raise DataShapeError(f"{data}, {test}: income labels other than '>50K' and '<=50K'")
    rows = np.sort(np.concatenate([positive, rng.choice(negative, size=positive.size, replace=False)]))
    adult = adult.iloc[rows].reset_index(drop=True)
    parts = [adult[list(ADULT_NUMERIC)].astype(float)]
    parts += [_indicators(adult[name], levels, name) for name, levels in ADULT_LEVELS.items()]
    frame = pd.concat(parts, axis=1)
    check_shape("encoded balanced Adult (BR stand-in)", frame.shape, (2 * positive.size, 52))
    return _encoded(frame, adult.income.eq(">50K"), _unit([c for c in frame.columns if "=" in c]))


def encode_user_extract(path: str | Path, expected_shape: tuple = IPUMS_BR_SHAPE) -> Encoded:
    """Encode a user-supplied IPUMS extract (e.g. the BR set): whitespace-separated numbers, label last.

    The label column must have two distinct values; the larger is the positive class.
    """
    table = np.loadtxt(path, ndmin=2)
    check_shape(f"{path} (user-supplied extract)", table.shape, expected_shape)
    values = np.unique(table[:, -1])
    if values.size != 2:
        raise DataShapeError(f"{path}: the last column must be a binary label, found {values.size} distinct values")
    frame = pd.DataFrame(table[:, :-1], columns=[f"x{j + 1}" for j in range(table.shape[1] - 1)])
    return _encoded(frame, table[:, -1] == values[1], {})


# --------------------------------------------------------------------------- clustering sets

LIFESCI_SHAPE = (26733, 11)
IMAGE_PIXELS = 34112
IMAGE_NAME = "china.jpg"
IMAGE_SHAPE = (427, 640, 3)


def encode_lifesci(path: str | Path) -> Encoded:
    """Lifesci (komarix ``ds1.10``): 26,733 × 10 PCA columns; the last (label) column is dropped."""
    table = np.loadtxt(verified(path), delimiter=",", ndmin=2)
    check_shape(f"{path} (Lifesci ds1.10)", table.shape, LIFESCI_SHAPE)
    frame = pd.DataFrame(table[:, :-1], columns=[f"pc{j + 1}" for j in range(table.shape[1] - 1)])
    return _encoded(frame, None, {})


def bundled_image(name: str = IMAGE_NAME) -> np.ndarray:
    """Return an RGB sample image shipped inside the scikit-learn wheel (no download), as uint8 ``(h, w, 3)``."""
    from sklearn.datasets import load_sample_image

    return load_sample_image(name)


def encode_image_pixels(image: np.ndarray, rng: np.random.Generator, n_pixels: int = IMAGE_PIXELS) -> Encoded:
    """Encode the Image substitute: ``n_pixels`` RGB vectors drawn without replacement from ``image``.

    The public pixel range ``[0, 255]`` is declared, so scaling gives ``x/127.5 - 1`` (spec §6).
    """
    check_shape("bundled image", image.shape, IMAGE_SHAPE)
    pixels = image.reshape(-1, 3)
    chosen = np.sort(rng.choice(len(pixels), size=n_pixels, replace=False))
    frame = pd.DataFrame(pixels[chosen].astype(float), columns=["red", "green", "blue"])
    return _encoded(frame, None, {c: (0.0, 255.0) for c in frame.columns})


# --------------------------------------------------------------------------- storage


def save(data: TabularData, path: str | Path) -> Path:
    """Write ``data`` to a compressed ``.npz`` (no pickles)."""
    np.savez_compressed(
        path,
        features=data.features,
        labels=np.array([]) if data.labels is None else data.labels,
        has_labels=data.labels is not None,
        columns=np.array(data.columns),
        name=data.name,
        source=data.source,
        substitute=data.substitute,
    )
    return Path(path)


def load(path: str | Path) -> TabularData:
    """Read a table written by :func:`save`; checks that features lie in ``[-1, 1]``."""
    with np.load(path, allow_pickle=False) as stored:
        features = stored["features"]
        labels = stored["labels"] if bool(stored["has_labels"]) else None
        data = TabularData(
            str(stored["name"]),
            features,
            labels,
            tuple(str(c) for c in stored["columns"]),
            str(stored["source"]),
            str(stored["substitute"]),
        )
    if features.ndim != 2 or (labels is not None and labels.shape != (features.shape[0],)):
        raise DataShapeError(f"{path}: features {features.shape} and labels {None if labels is None else labels.shape}")
    if np.abs(features).max() > 1.0:
        raise DataShapeError(f"{path}: features outside [-1, 1]")
    return data
