"""One look for every published figure (issue #54): text of at least 7 pt, numbers in fixed point or
powers of ten (never ``1e-03``), one titling convention, every legend entry visible, every marker
explained in a legend or the caption, no legend over data and no bars on a log axis (issue #35);
and the checks behind them find what they look for. Each figure is drawn once for all of them."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.container import BarContainer
from published_figures import CAPTIONS, DRAWINGS, figure

from dpreplication.plotting import checks
from dpreplication.plotting.core import new_figure


def bars_on_a_log_axis(drawn) -> list[str]:
    """The panels of ``drawn`` that draw bars on a log axis (a bar's length means nothing there)."""
    logged = [ax for ax in drawn.axes if ax.get_yscale() == "log" or ax.get_xscale() == "log"]
    return [ax.get_title() for ax in logged if any(isinstance(c, BarContainer) for c in ax.containers)]


def style_problems(drawn, caption: str = "") -> list[str]:
    """Every break of the one look in ``drawn``, each prefixed with the check that found it."""
    explained_by = f"{caption} {drawn.get_suptitle()}"
    found = {
        "legend over data": checks.legend_overlaps(drawn),
        "bars on a log axis": bars_on_a_log_axis(drawn),
        "text under 7 pt": checks.small_texts(drawn),
        "e-notation": checks.e_notation_texts(drawn),
        "title": checks.title_problems(drawn),
        "legend entry hidden": checks.hidden_series(drawn),
        "marker unexplained": checks.unexplained_markers(drawn, explained_by),
    }
    return [f"{check}: {problem}" for check, problems in found.items() for problem in problems]


@pytest.mark.parametrize("name", sorted(DRAWINGS))
def test_every_figure_keeps_the_one_look(name):
    drawn = figure(name)
    problems = style_problems(drawn, CAPTIONS.get(name, ""))
    plt.close(drawn)
    assert problems == [], f"{name}:\n" + "\n".join(problems)


def _two_panels():
    drawn, axes = new_figure(1, 2)
    drawn.suptitle("Fig. 9: a planted figure")
    for index, ax in enumerate(axes[0]):
        ax.plot([0, 1], [0, 1], "o-", label="rising")
        ax.set_title(f"({'ab'[index]}) panel")
    drawn.legend(loc="outside lower center")
    return drawn, axes[0]


def _under(ax):
    """Plant a series under "rising", narrower and of the same data, with its own legend entry."""
    ax.plot([0, 1], [0, 1], lw=1.0, color="#D55E00", zorder=1, label="under")
    ax.legend(loc="upper left")


def test_a_figure_that_keeps_the_convention_passes():
    drawn, _ = _two_panels()
    assert style_problems(drawn) == []
    plt.close(drawn)


@pytest.mark.parametrize(
    ("plant", "check"),
    [
        (lambda d, axes: axes[0].text(0.5, 0.5, "0.038", fontsize=5.5), "text under 7 pt"),
        (lambda d, axes: axes[1].set_xlabel("δ = 1e-6"), "e-notation"),
        (lambda d, axes: d.suptitle(""), "title"),
        (lambda d, axes: axes[1].set_title("(c) panel"), "title"),
        (lambda d, axes: axes[0].set_title("no letter"), "title"),
        (lambda d, axes: _under(axes[0]), "legend entry hidden"),
        (lambda d, axes: axes[1].plot([0.5], [0.2], "v", mfc="none"), "marker unexplained"),
        (lambda d, axes: axes[0].legend(loc="upper right"), "legend over data"),  # over (1, 1)
        (lambda d, axes: (axes[1].bar([0.5], [0.5]), axes[1].set_yscale("log")), "bars on a log axis"),
    ],
    ids=[
        "small text",
        "e-notation",
        "no figure title",
        "letters out of order",
        "panel without letter",
        "a series drawn under another",
        "a hollow marker",
        "a legend over the data",
        "bars on a log axis",
    ],
)
def test_each_planted_break_is_found_by_its_check(plant, check):
    drawn, axes = _two_panels()
    plant(drawn, axes)
    problems = style_problems(drawn)
    plt.close(drawn)
    assert [problem for problem in problems if problem.startswith(check)], problems


def test_a_caption_that_names_the_marker_explains_it():
    drawn, axes = _two_panels()
    axes[1].plot([0.5], [0.2], "v", mfc="none")
    assert style_problems(drawn, "hollow triangles: the runs that failed") == []
    plt.close(drawn)


def test_a_single_panel_takes_no_title_of_its_own():
    drawn, axes = new_figure()
    drawn.suptitle("a figure")
    axes[0][0].set_title("(a) panel")
    assert checks.title_problems(drawn) == ["a single panel titled '(a) panel': the figure title says it"]
    plt.close(drawn)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_figure_refuses_to_write_a_number_that_is_not_finite(value):
    from dpreplication.plotting.labels import number

    with pytest.raises(ValueError, match="finite numbers"):
        number(value)


def test_numbers_are_fixed_point_or_powers_of_ten():
    from dpreplication.plotting.labels import number

    assert [number(v) for v in (0, 1e-6, 3.1e-4, 0.13107, 0.1, -0.05, 12345)] == [
        "0",
        "$10^{-6}$",
        r"$3.1\times10^{-4}$",
        "0.131",
        "0.1",
        "-0.05",
        "12345",
    ]
