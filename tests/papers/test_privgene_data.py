"""PrivGene datasets (spec §6, §8 check 15): encodings, shapes, scaling, and clear failures.

Tests that need a mirrored file skip, naming it, when the mirror lacks it.
"""

import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from dpreplication import seeding
from dpreplication.data import DATASETS, DataIntegrityError, fetch, tabular
from dpreplication.data.catalog import DataFile, Dataset
from dpreplication.data.fetch import MIRROR_ENV
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.privgene import datasets as privgene_datasets

MIRROR = Path(os.environ.get(MIRROR_ENV, "")) if os.environ.get(MIRROR_ENV) else None

DATA_SETTINGS = profile_config("default", Path(__file__).resolve().parents[2])["privgene"]["data"]
"""The default profile's PrivGene data settings (scaling, thresholds, the Image size)."""


@pytest.fixture(scope="session")
def raw_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("raw")


def mirrored(dataset: str, name: str, raw: Path) -> Path:
    """A verified copy of a catalogue file fetched from the mirror into ``raw`` (skip if absent)."""
    folder = DATASETS[dataset].mirror_directory or dataset
    if MIRROR is None or not ((MIRROR / folder / name).is_file() or (MIRROR / folder / f"{name}.gz").is_file()):
        pytest.skip(f"the data mirror lacks {folder}/{name}: PrivGene loader check not run")
    target = raw / dataset / name
    return target if target.is_file() else fetch(dataset, name, target, MIRROR)


def prepared(name: str, raw: Path):
    spec = privgene_datasets.DATASETS[name]
    return privgene_datasets.prepare_dataset(
        name, [mirrored(spec.catalog, f, raw) for f in spec.files], seed=1, **DATA_SETTINGS
    )


@pytest.mark.parametrize(
    "name, rows, columns, positive",
    [
        ("Adult", 48842, 123, 0.2393),
        ("Banking", 45211, 32, 0.1170),
        ("US", 23006, 57, 0.5198),
        ("BR", 23374, 52, 0.5),
    ],
)
def test_classification_sets_have_the_spec_shapes(name, rows, columns, positive, raw_dir):
    data = prepared(name, raw_dir)
    assert data.features.shape == (rows, columns)
    assert data.dimensionality == privgene_datasets.DATASETS[name].paper_d
    assert data.labels.mean() == pytest.approx(positive, abs=5e-5)
    assert data.features.min() == -1.0 and data.features.max() == 1.0


def test_binary_columns_become_plus_minus_one_and_bank_matches_the_spec_frequencies(raw_dir):
    data = prepared("Banking", raw_dir)
    assert set(np.unique(data.features[:, 1:12])) == {-1.0, 1.0}
    admin, blue_collar = data.columns.index("job=admin."), data.columns.index("job=blue-collar")
    assert ((data.features[:, admin] + 1) / 2).mean() == pytest.approx(0.1144, abs=5e-5)
    assert ((data.features[:, blue_collar] + 1) / 2).mean() == pytest.approx(0.2153, abs=5e-5)


def test_clustering_sets_and_the_bundled_image(raw_dir):
    lifesci = prepared("Lifesci", raw_dir)
    assert lifesci.features.shape == (26733, 10) and lifesci.labels is None and lifesci.dimensionality == 10
    image = privgene_datasets.prepare_dataset("Image", [], seed=1, **DATA_SETTINGS)
    assert image.features.shape == (34112, 3) and image.dimensionality == 3 and image.substitute
    source = Path(__import__("sklearn").__file__).parent / "datasets" / "images" / tabular.IMAGE_NAME
    assert source.is_file(), "the Image substitute must come from inside the installed wheel"
    pixels = tabular.bundled_image()
    levels = image.features * 127.5 + 127.5  # x/127.5 - 1 undone: integer pixel values
    assert np.abs(levels - np.round(levels)).max() < 1e-9 and levels.min() >= 0 and levels.max() <= 255
    assert pixels.dtype == np.uint8


def test_save_and_load_round_trip(tmp_path):
    data = privgene_datasets.prepare_dataset("Image", [], seed=3, **{**DATA_SETTINGS, "image_pixels": 500})
    loaded = tabular.load(tabular.save(data, tmp_path / "image.npz"))
    assert loaded.name == "Image" and loaded.labels is None and np.array_equal(loaded.features, data.features)
    assert loaded.substitute == data.substitute


def test_scaling_modes():
    encoded = tabular.Encoded(
        np.array([[0.0, 5.0, 2.0], [1.0, 7.0, 2.0], [0.0, 6.0, 2.0]]),
        None,
        ("flag", "x", "const"),
        np.array([0.0, np.nan, np.nan]),
        np.array([1.0, np.nan, np.nan]),
    )
    scaled = tabular.scale_to_unit_box(encoded)
    assert np.array_equal(scaled, [[-1, -1, 0], [1, 1, 0], [-1, 0, 0]])
    with pytest.raises(ValueError, match="no public bounds"):
        tabular.scale_to_unit_box(encoded, "public")


def test_wrong_shapes_are_rejected_clearly(tmp_path, raw_dir):
    source = mirrored("bank", "bank-full.csv", raw_dir)
    truncated = tmp_path / "bank-truncated.csv"  # not a catalogue name: the shape check is under test
    truncated.write_text("".join(source.read_text().splitlines(keepends=True)[:1000]))
    with pytest.raises(tabular.DataShapeError, match=r"expected shape \(45211, 17\), got \(999, 17\)"):
        tabular.encode_bank(truncated)
    extract = tmp_path / "br.dat"
    np.savetxt(extract, np.zeros((10, 53)))
    with pytest.raises(tabular.DataShapeError, match=r"expected shape \(38000, 53\)"):
        tabular.encode_user_extract(extract)


def test_user_extract_replaces_the_br_stand_in(tmp_path):
    generator = seeding.generator(1, "extract")
    table = np.hstack([generator.integers(0, 5, size=(200, 52)), generator.integers(1, 3, size=(200, 1))])
    extract = tmp_path / "IPUMS-BR.dat"
    np.savetxt(extract, table, fmt="%d")
    encoded = tabular.encode_user_extract(extract, expected_shape=(200, 53))
    assert encoded.features.shape == (200, 52) and set(encoded.labels) == {0, 1}
    assert np.array_equal(encoded.labels, table[:, -1] == 2)


def test_corrupt_mirror_copy_fails_with_name_and_checksum(tmp_path, raw_dir):
    source = mirrored("lifesci", "ds1.10.csv", raw_dir)
    (tmp_path / "mirror" / "lifesci").mkdir(parents=True)
    corrupt = tmp_path / "mirror" / "lifesci" / "ds1.10.csv"
    shutil.copyfile(source, corrupt)
    with open(corrupt, "ab") as stream:
        stream.write(b"1,2,3\n")
    expected = DATASETS["lifesci"].file("ds1.10.csv").sha256
    with pytest.raises(DataIntegrityError, match=expected):
        fetch("lifesci", "ds1.10.csv", tmp_path / "raw" / "ds1.10.csv", tmp_path / "mirror")
    assert not (tmp_path / "raw" / "ds1.10.csv").exists()


def test_zip_member_download_is_extracted_and_verified(tmp_path, monkeypatch):
    """A catalogue entry whose URL is a zip (UCI's bank.zip): the member is extracted, then verified."""
    content = b"a;b\n1;2\n"
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("inner.csv", content)
    import hashlib

    entry = DataFile("inner.csv", archive.as_uri(), hashlib.sha256(content).hexdigest(), archive_member="inner.csv")
    monkeypatch.setitem(DATASETS, "zipped", Dataset("zipped", (entry,), "test", "test"))
    out = fetch("zipped", "inner.csv", tmp_path / "raw" / "inner.csv")
    assert out.read_bytes() == content
    wrong = DataFile("inner.csv", archive.as_uri(), entry.sha256, archive_member="missing.csv")
    monkeypatch.setitem(DATASETS, "zipped", Dataset("zipped", (wrong,), "test", "test"))
    with pytest.raises(DataIntegrityError, match="missing.csv"):
        fetch("zipped", "inner.csv", tmp_path / "raw2" / "inner.csv")


def test_table2_reports_every_substitution():
    data = {"Image": privgene_datasets.prepare_dataset("Image", [], seed=1, **{**DATA_SETTINGS, "image_pixels": 100})}
    table = privgene_datasets.table2(data)
    assert table.loc[0, "substitute"].startswith("SIPU") and table.loc[0, "paper_n"] == 34112
