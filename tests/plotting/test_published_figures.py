"""Every published figure reads like the paper's: one colour per PrivGene method, and each figure
defect of issues #35 and #54 stays fixed (no legend over data and no bars on a log axis are among
the one look's checks, ``test_figure_style.py``, run on one drawing of each figure).

The figures are the committed tree's, drawn as their drawing rules draw them (:mod:`published_figures`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_hex
from published_figures import figure, table

from dpreplication.plotting import distributions
from dpreplication.plotting.styles import PRIVGENE_STYLES, privgene_style

PRIVGENE_METHOD_FIGURES = [
    "privgene/fig3_lr",
    "privgene/fig4_svm",
    "privgene/fig5_kmeans",
    "privgene/fig6_eem_vs_em_us",
    "privgene/fig7_eem_vs_em_br",
]


def test_every_privgene_method_has_one_colour_in_every_figure():
    colours: dict[str, set[str]] = {}
    for name in PRIVGENE_METHOD_FIGURES:
        drawn = figure(name)
        for legend in drawn.legends:
            for handle, text in zip(legend.legend_handles, legend.get_texts()):
                method = text.get_text().partition(", r=")[0]
                colours.setdefault(method, set()).add(to_hex(handle.get_color()))
        plt.close(drawn)
    assert colours and {method: len(seen) for method, seen in colours.items()} == dict.fromkeys(colours, 1)
    for method, seen in colours.items():
        assert seen == {to_hex(privgene_style(method)["color"])}
    distinct = [to_hex(style["color"]) for method, style in PRIVGENE_STYLES.items() if method != "EEM"]
    assert len(set(distinct)) == len(distinct)  # no two methods share a hue (EEM is PrivGene's)


def test_a_reference_is_drawn_above_a_method_at_its_level():
    drawn = figure("privgene/fig4_svm")  # PrivateSVM predicts the majority class on Adult and Banking
    zorder = {line.get_label(): line.get_zorder() for line in drawn.axes[0].get_lines()}
    plt.close(drawn)
    assert zorder["Majority"] > zorder["PrivateSVM"]


def test_eem_and_its_rnm_exp_variant_differ_in_line_style():
    drawn = figure("privgene/fig6_eem_vs_em_us")
    lines = {line.get_label(): line for line in drawn.axes[0].get_lines()}
    plt.close(drawn)
    eem, rnm = lines["EEM"], lines["EEM-RNMExp"]
    assert eem.get_linestyle() != rnm.get_linestyle() and eem.get_marker() != rnm.get_marker()
    assert rnm.get_zorder() > eem.get_zorder() and rnm.get_linewidth() < eem.get_linewidth()  # narrow on top


def test_the_constant_gamma_is_named_in_every_panel():
    drawn = figure("darrm/f2_gamma_shapes")
    texts = [[t.get_text() for t in ax.texts] for ax in drawn.axes if ax.get_visible()]
    labels = [t.get_text() for t in drawn.legends[0].get_texts()]
    plt.close(drawn)
    assert all(any("gamma_{const}" in text for text in panel) for panel in texts)
    assert any("gamma_{const}" in label for label in labels)


def test_small_numbers_in_mathtext_titles_are_powers_of_ten():
    drawn = figure("darrm/f2_gamma_shapes")  # Δ = 1e-05
    title = drawn.get_suptitle()
    plt.close(drawn)
    assert r"\Delta=10^{-5}" in title and "e-05" not in title


@pytest.mark.parametrize("name", ["truncated_laplace/amplitude_ratio_heatmap", "truncated_laplace/power_ratio_heatmap"])
def test_every_contour_label_lies_inside_the_axes(name):  # the full grid's 0.2 label was clipped
    drawn = figure(name)
    drawn.canvas.draw()
    ax = drawn.axes[0]
    box = ax.get_window_extent()
    labels = [text for text in ax.texts if text.get_text()]
    extents = [text.get_window_extent() for text in labels]
    plt.close(drawn)
    assert labels
    outside = [
        t.get_text() for t, e in zip(labels, extents) if not (box.contains(e.x0, e.y0) and box.contains(e.x1, e.y1))
    ]
    assert outside == []
    overlapping = [(a, b) for i, a in enumerate(extents) for b in extents[i + 1 :] if a.overlaps(b)]
    assert overlapping == []


@pytest.mark.parametrize("name", ["truncated_laplace/amplitude_ratio_heatmap", "truncated_laplace/small_epsilon_limit"])
def test_ratio_symbols_are_subscripts(name):
    drawn = figure(name)
    labels = [ax.get_ylabel() for ax in drawn.axes]
    labels += [t.get_text() for ax in drawn.axes for t in (ax.get_legend().get_texts() if ax.get_legend() else [])]
    plt.close(drawn)
    assert any("$R_V$" in label for label in labels)
    assert not any("R_V" in label.replace("$R_V$", "") for label in labels)


def test_exact_tv_lines_close_together_do_not_overprint():
    data = table("permute_and_flip/tv_convergence").copy()
    exact = data.kind == "exact"
    first = data[exact].series.iloc[0]
    data.loc[exact, "tv"] = data[exact].series.map(lambda s: 0.0630 if s == first else 0.0625)  # as at ε = 2
    drawn = distributions.tv_convergence(data)
    drawn.canvas.draw()
    texts = [t for ax in drawn.axes for t in ax.texts if t.get_text()]
    extents = [t.get_window_extent() for t in texts]
    labels = [t.get_text() for legend in drawn.legends for t in legend.get_texts()]
    plt.close(drawn)
    assert set(data[exact].series) <= set(labels)
    assert not [(a, b) for i, a in enumerate(extents) for b in extents[i + 1 :] if a.overlaps(b)]


def test_fig5_at_the_papers_scales_logs_only_image_and_zooms_into_the_linear_lifesci_panels():
    drawn = figure("privgene/fig5_kmeans")
    data = table("privgene/fig5_kmeans")
    panels = list(dict.fromkeys(zip(data.dataset, data.task)))
    main = drawn.axes[: len(panels)]
    scales = {str(panel): ax.get_yscale() for panel, ax in zip(panels, main)}
    insets = [[line.get_label() for line in child.get_lines()] for ax in main for child in ax.child_axes]
    plt.close(drawn)
    assert scales == {str(p): "log" if p[0] == "Image" else "linear" for p in panels}
    assert len(insets) == sum(p[0] == "Lifesci" for p in panels)
    assert all("GUPT" not in labels and "PrivGene" in labels for labels in insets)


def test_no_value_label_overlaps_a_marker():
    """F9's rotated labels of small values started on their point's marker (issue #54 review): a
    label keeps 2 pt clear of every marker."""
    from matplotlib.transforms import Bbox

    from dpreplication.plotting.noise_functions import POINT_SIZE

    drawn = figure("darrm/f9_prior_errors")
    drawn.canvas.draw()
    half = (POINT_SIZE / 2 + 2) * drawn.dpi / 72
    overlapping = []
    for ax in drawn.axes:
        markers = [
            Bbox.from_extents(x - half, y - half, x + half, y + half)
            for line in ax.get_lines()
            if line.get_marker() not in (None, "", "None", "_")
            for x, y in line.get_transform().transform(line.get_xydata())
        ]
        for text in ax.texts:
            box = text.get_window_extent()
            overlapping += [text.get_text() for marker in markers if box.overlaps(marker)]
    plt.close(drawn)
    assert overlapping == []
