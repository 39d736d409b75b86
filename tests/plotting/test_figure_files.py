"""Every published figure is written twice (issue #54): a PNG for the screen and a vector PDF for a
paper, each with its checksum record, the PDF with its text as embedded TrueType text and no bytes
that depend on when it was written."""

from __future__ import annotations

import re

import pytest
from published_figures import DRAWINGS, REPO, figure

from dpreplication.pipeline.jobs import recorded_checksum
from dpreplication.pipeline.provenance import file_sha256
from dpreplication.plotting import save_figure

IMAGE = re.compile(rb"/Subtype\s*/Image")


@pytest.mark.parametrize("name", sorted(DRAWINGS))
def test_each_figure_has_a_checksummed_pdf_beside_its_png(name):
    png, pdf = (REPO / "figures" / f"{name}{suffix}" for suffix in (".png", ".pdf"))
    assert png.is_file() and pdf.is_file(), f"{name}: run `make replicate` to draw its PNG and PDF"
    recorded = recorded_checksum(pdf)
    assert recorded is not None and recorded[0] == file_sha256(pdf), f"{pdf.name}: checksum record {recorded}"
    content = pdf.read_bytes()
    assert content.startswith(b"%PDF-") and b"/FontFile2" in content and b"/Type3" not in content
    assert b"/CreationDate" not in content and b"/Producer" not in content


def rasterised(drawn) -> bool:
    """Whether an artist of ``drawn`` asks to be rasterised (a dense mesh): its PDF may hold an image."""
    return any(artist.get_rasterized() for artist in drawn.findobj() if hasattr(artist, "get_rasterized"))


@pytest.mark.parametrize("name", ["truncated_laplace/density", "truncated_laplace/amplitude_ratio_heatmap"])
def test_a_pdf_is_vector_but_for_what_asks_to_be_rasterised_and_its_bytes_repeat(name, tmp_path):
    written = []
    for attempt in range(2):
        drawn = figure(name)
        raster = rasterised(drawn)
        png, pdf = save_figure(drawn, tmp_path / f"{attempt}.png", tmp_path / f"{attempt}.pdf")
        written.append(pdf.read_bytes())
    assert written[0] == written[1]
    assert bool(IMAGE.search(written[0])) == raster, f"{name}: images in the PDF {IMAGE.findall(written[0])}"


def test_no_published_pdf_holds_an_image_unless_its_drawing_rasterises_an_artist():
    with_images = {name for name in DRAWINGS if IMAGE.search((REPO / "figures" / f"{name}.pdf").read_bytes())}
    assert with_images <= {"truncated_laplace/amplitude_ratio_heatmap", "truncated_laplace/power_ratio_heatmap"}
