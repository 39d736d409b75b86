"""A figure diff a person can read: for each figure that changed, did its data change, and how it looks.

:mod:`dpreplication.pipeline.drift` says *that* a published output moved. This module says, for each
figure whose picture moved beyond the references' RMS tolerance, whether its data moved too (which
columns, by how much: the drift check of its CSV alone) or only the drawing, and writes into one
folder, per changed figure, the reference, the new picture, matplotlib's difference image
(:func:`matplotlib.testing.compare.compare_images`) and the three side by side, with an
``index.html`` that shows them. Tables without a picture are reported by the drift check as before.
Command line (``make check-figures`` regenerates the quick profile first)::

    python -m dpreplication.pipeline.figure_diff results/quick/figures tests/references/quick results/quick/figure-diff
"""

from __future__ import annotations

import argparse
import html
import math
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from dpreplication.pipeline import drift


@dataclass(frozen=True)
class FigureChange:
    """One figure whose picture moved.

    ``rms``: its RMS pixel difference (``inf``: size changed or not regenerated);
    ``data_problems``: the drift problems of its data (empty: unchanged; ``None``: it has no CSV).
    """

    name: str
    rms: float
    data_problems: tuple[str, ...] | None

    @property
    def verdict(self) -> str:
        """``"data changed"``, ``"data unchanged"`` (only the drawing moved) or ``"no data file"``."""
        if self.data_problems is None:
            return "no data file"
        return "data changed" if self.data_problems else "data unchanged"


def figure_changes(produced_dir: Path, reference_dir: Path) -> list[FigureChange]:
    """Every reference PNG whose regenerated picture is missing or beyond the RMS tolerance."""
    produced_dir, reference_dir = Path(produced_dir), Path(reference_dir)
    tolerance = float(drift.load_tolerances(reference_dir)["png_rms"])
    changes = []
    for reference in drift.references(reference_dir):
        if reference.suffix != ".png":
            continue
        name = str(reference.relative_to(reference_dir).with_suffix(""))
        produced = produced_dir / reference.relative_to(reference_dir)
        rms = drift.image_rms(reference, produced) if produced.is_file() else math.inf
        if rms <= tolerance:
            continue
        data = None
        if reference.with_suffix(".csv").is_file():
            data = tuple(drift.check(produced_dir, reference_dir, only=[name], suffixes=(".csv",)))
        changes.append(FigureChange(name, rms, data))
    return changes


def side_by_side(images: list[Path], titles: list[str], path: Path) -> Path:
    """Write the images in one row, each under its title."""
    from matplotlib.image import imread

    from dpreplication.plotting.core import new_figure, save_png

    pictures = [imread(image) for image in images]
    height = max(picture.shape[0] for picture in pictures)
    width = sum(picture.shape[1] for picture in pictures)
    figure, axes = new_figure(1, len(pictures), width=min(18.0, 3.0 * width / height), height=3.4)
    for axis, picture, title in zip(axes[0], pictures, titles, strict=True):
        axis.imshow(picture)
        axis.set_title(title)
        axis.set_axis_off()
    return save_png(figure, path)


def write_report(changes: list[FigureChange], produced_dir: Path, reference_dir: Path, out_dir: Path) -> Path:
    """Write, per changed figure, its reference, new picture, difference and side-by-side images, and ``index.html``."""
    from matplotlib.testing.compare import compare_images

    out_dir = Path(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    sections = []
    for change in changes:
        stem = change.name.replace("/", "__")
        expected = shutil.copyfile(Path(reference_dir) / f"{change.name}.png", out_dir / f"{stem}-expected.png")
        produced = Path(produced_dir) / f"{change.name}.png"
        shown = [expected]
        if produced.is_file():
            actual = shutil.copyfile(produced, out_dir / f"{stem}.png")
            shown.append(actual)
            if not math.isinf(change.rms):
                shown.append(Path(compare_images(str(expected), str(actual), tol=0, in_decorator=True)["diff"]))
        titles = ["reference", "now", "difference"][: len(shown)]
        pair = side_by_side(shown, titles, out_dir / f"{stem}-side-by-side.png")
        problems = "".join(f"<li>{html.escape(problem)}</li>" for problem in change.data_problems or ())
        sections.append(
            f"<section><h2>{html.escape(change.name)}: {change.verdict}</h2>"
            f"<p>RMS pixel difference {change.rms:.3f}</p><ul>{problems}</ul>"
            f'<img src="{pair.name}" alt="{html.escape(change.name)}: reference, now, difference"></section>'
        )
    body = "".join(sections) or "<p>No figure changed.</p>"
    index = out_dir / "index.html"
    index.write_text(
        '<!doctype html><html><head><meta charset="utf-8"><title>Changed figures</title>'
        "<style>body{font-family:sans-serif;margin:2em}img{max-width:100%}</style></head>"
        f"<body><h1>Changed figures ({len(changes)})</h1>{body}</body></html>"
    )
    return index


def main(argv=None) -> int:
    """Check every reference, report each changed figure and write the diff folder; 1 if anything moved."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("produced", type=Path, help="regenerated figures, e.g. results/quick/figures")
    parser.add_argument("reference", type=Path, help="committed references, e.g. tests/references/quick")
    parser.add_argument("out", type=Path, help="folder for the images and index.html, e.g. results/quick/figure-diff")
    args = parser.parse_args(argv)
    changes = figure_changes(args.produced, args.reference)
    names = {str(path.relative_to(args.reference).with_suffix("")) for path in drift.references(args.reference)}
    others = sorted(names - {change.name for change in changes})
    tables = drift.check(args.produced, args.reference, only=others) if others else []
    index = write_report(changes, args.produced, args.reference, args.out)
    for change in changes:
        print(f"{change.name}: {change.verdict} (picture RMS {change.rms:.3f})")
        for problem in change.data_problems or ():
            print(f"    {problem}")
    for problem in tables:
        print(problem)
    print(f"{len(changes)} figure(s) changed, {len(tables)} other problem(s); pictures in {index}")
    return 1 if changes or tables else 0


if __name__ == "__main__":
    sys.exit(main())
