"""The HTML report: a landing page, the scorecard as tables, every item with its caption and the
parameters it was computed with; valid HTML, and rendered by a real browser where one is installed."""

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from dpreplication.pipeline.report import ReportItem, build_report, caption_html, frame_html
from dpreplication.plotting import new_figure, save_png

VOID = {"meta", "img", "br", "hr", "input", "link"}


class TagBalance(HTMLParser):
    """Every opened element is closed, in order (void elements excepted)."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


@pytest.fixture
def report(tmp_path):
    figure, axes = new_figure()
    axes[0, 0].plot([0, 1], [0, 1])
    png = save_png(figure, tmp_path / "f.png")
    (tmp_path / "t.csv").write_text("epsilon,value\n0.5,1.25\n1.0,2.5\n")
    ledger = {"points": 1, "releases": 3, "failed_releases": 0, "mechanisms": ["laplace_mechanism"],
              "worst_ledger_error": 2.2e-16}  # fmt: skip
    (tmp_path / "f.json").write_text(
        json.dumps(
            {
                "settings": {"epsilon": 0.5},
                "seed": 7,
                "profile": "variant",
                "commit": "abc123",
                "dirty": False,
                "ledger": ledger,
            }
        )  # fmt: skip
    )
    (tmp_path / "f.ledger.csv").write_text(
        "method,epsilon,stated_epsilon,releases,ledger_error\nMajority,0.5,0.5,3,0.0\n"
    )
    (tmp_path / "f.rst").write_text("F1 — a curve with ``epsilon`` from the config.")
    (tmp_path / "t.rst").write_text("T1 — a table & its <values>.")
    items = [
        ReportItem("permute_and_flip", "f", Path(png), tmp_path / "f.rst", tmp_path / "f.json"),
        ReportItem("privgene", "t", tmp_path / "t.csv", tmp_path / "t.rst"),
    ]
    scorecard = pd.DataFrame(
        {
            "paper": ["permute_and_flip", "privgene"],
            "id": ["a", "b"],
            "kind": ["paper", "spec"],
            "claim": ["x", "y | z"],
            "expected": [1.0, 2.0],
            "reproduced": [1.0, 3.0],
            "status": ["pass", "fail"],
            "reason": ["", ""],
        }
    )
    return build_report(items, scorecard, "variant")


def test_landing_page_scorecard_items_and_parameters(report):
    assert "Differential-privacy replications: report" in report and "variant profile" in report
    assert "Ding et al. 2021" in report and "PrivGene" in report and "Geng" not in report
    assert '<span class="fail">fail</span>' in report and "y | z" in report
    assert "data:image/png;base64," in report and "<td>1.25</td>" in report
    assert "<code>epsilon</code>" in report and "T1 — a table &amp; its &lt;values&gt;." in report
    assert "seed 7" in report and "&quot;epsilon&quot;: 0.5" in report
    assert "Privacy ledger: 1 points, 3 releases spent by laplace_mechanism" in report and "<td>Majority</td>" in report


def test_an_output_without_a_seed_says_it_has_no_random_draws(tmp_path):
    """A rule without a seed draws nothing at random: the report says so instead of "seed None"."""
    from dpreplication.pipeline.report import parameters_html

    for seed, shown in ((None, "no random draws, commit"), (0, "seed 0, commit"), (2024, "seed 2024, commit")):
        sidecar = tmp_path / f"{seed}.json"
        sidecar.write_text(json.dumps({"settings": {}, "seed": seed, "profile": "default", "commit": "abc"}))
        assert shown in parameters_html(sidecar) and "None" not in parameters_html(sidecar)


def test_report_is_well_formed_html(report):
    checker = TagBalance()
    checker.feed(report)
    assert checker.errors == [] and checker.stack == []


def test_captions_escape_markup():
    assert caption_html("``a<b>`` & c") == "<code>a&lt;b&gt;</code> &amp; c"


def test_captions_render_rest_escapes_and_both_backtick_spans():
    r"""``\|`` is a bar (reST escapes it so ``|x|`` is no substitution); `x`, reST's default role, is code."""
    caption = r"E\|X\| at \|d\| = Δ; rows `replicate = all` and `*_seed_sd`, column ``a<b>``."
    assert caption_html(caption) == (
        "E|X| at |d| = Δ; rows <code>replicate = all</code> and <code>*_seed_sd</code>, column <code>a&lt;b&gt;</code>."
    )


def test_captions_keep_inline_literals_verbatim_and_escape_inside_interpreted_text():
    """An inline literal keeps its backslashes (reST does); interpreted text and prose resolve them."""
    assert caption_html(r"``x\|y`` `a\`b<` \`c\` \* e\ s & d") == (
        r"<code>x\|y</code> <code>a`b&lt;</code> `c` * es &amp; d"
    )


@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_tables_show_integers_whole_beside_rounded_floats():
    """An integer column keeps every digit in a row that also holds floats (no 1.23457e+06)."""
    table = frame_html(pd.DataFrame({"n_vertex_multisets": [1234567], "objective": [0.123456789]}))
    assert "<td>1234567</td>" in table and "<td>0.123457</td>" in table


def test_report_renders_in_headless_chromium(report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(report)
    screenshot = tmp_path / "shot.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={screenshot}",
            "--window-size=1200,900",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    from PIL import Image

    image = Image.open(screenshot).convert("L")
    assert image.size == (1200, 900)
    assert len(image.getcolors(maxcolors=256 * 256) or range(256)) > 20, "the page rendered blank"
