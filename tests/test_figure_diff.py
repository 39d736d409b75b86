"""The readable figure diff: a planted marker-size change is a drawing change with data unchanged,
shown as reference, new picture and matplotlib's difference image; a data change names its column."""

import numpy as np
import pandas as pd
import pytest

from dpreplication.pipeline import figure_diff
from dpreplication.plotting.core import new_figure, save_png


def draw(folder, name="paper/fig", marker_size=4.0, values=(1.0, 4.0, 9.0)):
    """One published figure: its CSV and its PNG (markers of ``marker_size``)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    data = pd.DataFrame({"x": [1, 2, 3], "y": list(values)})
    data.to_csv(path.with_suffix(".csv"), index=False)
    figure, axes = new_figure(width=3, height=2.5)
    axes[0][0].plot(data.x, data.y, "o-", markersize=marker_size)
    save_png(figure, path.with_suffix(".png"))


@pytest.fixture
def trees(tmp_path):
    reference, produced = tmp_path / "reference", tmp_path / "produced"
    draw(reference)
    draw(reference, "paper/other")
    draw(produced, "paper/other")
    return reference, produced


def test_a_marker_size_change_is_a_drawing_change_with_data_unchanged(trees, tmp_path, capsys):
    reference, produced = trees
    draw(produced, marker_size=12.0)
    (change,) = figure_diff.figure_changes(produced, reference)
    assert change.name == "paper/fig" and change.verdict == "data unchanged" and change.rms > 2
    assert figure_diff.main([str(produced), str(reference), str(tmp_path / "diff")]) == 1
    out = capsys.readouterr().out
    assert "paper/fig: data unchanged (picture RMS" in out and "1 figure(s) changed, 0 other problem(s)" in out
    written = sorted(path.name for path in (tmp_path / "diff").iterdir())
    assert written == [
        "index.html", "paper__fig-expected.png", "paper__fig-failed-diff.png", "paper__fig-side-by-side.png",
        "paper__fig.png",
    ]  # fmt: skip
    page = (tmp_path / "diff" / "index.html").read_text()
    assert "paper/fig: data unchanged" in page and 'src="paper__fig-side-by-side.png"' in page


def test_a_data_change_names_its_column(trees):
    reference, produced = trees
    draw(produced, values=(1.0, 4.0, 16.0))
    (change,) = figure_diff.figure_changes(produced, reference)
    assert change.verdict == "data changed"
    assert (
        "column 'y' drifted in 1 rows" in change.data_problems[0]
        and "reference 9.0, now 16.0" in change.data_problems[0]
    )


def test_unchanged_figures_and_a_missing_one(trees, tmp_path):
    reference, produced = trees
    draw(produced)
    assert figure_diff.figure_changes(produced, reference) == []
    assert figure_diff.main([str(produced), str(reference), str(tmp_path / "diff")]) == 0
    (produced / "paper" / "fig.png").unlink()
    (change,) = figure_diff.figure_changes(produced, reference)
    assert np.isinf(change.rms) and change.verdict == "data unchanged"
    figure_diff.write_report([change], produced, reference, tmp_path / "diff")
    assert (tmp_path / "diff" / "paper__fig-side-by-side.png").is_file()  # the reference alone
