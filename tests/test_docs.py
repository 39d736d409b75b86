"""The README stays a five-minute read, every docs page is on the site's navigation, and every relative
link of the README and the docs pages leads somewhere: to an existing file and, where it names one,
to an existing heading, both on GitHub and on the MkDocs site."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from markdown.extensions.toc import slugify

REPO = Path(__file__).resolve().parents[1]
README_MAX_LINES = 250
"""Issue #54: a newcomer reads the README in five minutes; everything deeper lives under docs/."""
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]
"""Every page a reader follows links from: the README and each Markdown page under docs/."""
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def relative(path: Path) -> str:
    """A page's path from the repository root (as it is, outside the repository)."""
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def nav_pages(entries) -> list[str]:
    """The page paths of a mkdocs.yml `nav:` (nested sections flattened)."""
    pages = []
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def without_code_blocks(text: str) -> str:
    """The text without its fenced code blocks, where a `#` is no heading and a bracket no link."""
    return re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)


def prose(text: str) -> str:
    """The text without fenced code blocks or code spans."""
    return re.sub(r"`[^`\n]*`", "", without_code_blocks(text))


def links(text: str) -> list[str]:
    """The targets of the inline links and images of a Markdown text."""
    return re.findall(r"\]\(\s*<?([^)\s>]+)", prose(text))


def headings(text: str) -> list[str]:
    """The ATX headings of a Markdown text, without their markers."""
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", without_code_blocks(text), re.M)]


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")


def mkdocs_anchor(heading: str) -> str:
    """The anchor MkDocs' toc extension gives a heading (its default slugify)."""
    return slugify(re.sub(r"[`*]", "", heading), "-")


def test_the_readme_is_a_five_minute_read():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/"


def test_every_docs_page_is_on_the_site_navigation():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    nav = nav_pages(config["nav"])
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    missing = sorted(page for page in pages if not page.startswith("api/") and page not in nav)
    assert not missing, f"docs pages missing from mkdocs.yml's nav: {missing}"
    assert not sorted(set(nav) - pages), "mkdocs.yml's nav names pages that do not exist"


def test_the_home_page_lists_every_api_page_of_the_navigation():
    """docs/index.md links each page of the nav's API reference, so a new API page is not left off."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    (api,) = [entry["API reference"] for entry in config["nav"] if isinstance(entry, dict) and "API reference" in entry]
    listed = {link.partition("#")[0] for link in links((DOCS / "index.md").read_text())}
    missing = sorted(set(nav_pages(api)) - listed)
    assert not missing, f"docs/index.md does not link these API pages of mkdocs.yml's nav: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_relative_link_resolves(page):
    text = page.read_text()
    broken = []
    for link in links(text):
        if SCHEME.match(link):
            continue
        path, _, anchor = link.partition("#")
        if path.startswith("/"):
            broken.append(f"{link}: absolute, resolves on neither GitHub nor the site")
            continue
        target = (page.parent / path).resolve() if path else page
        if not target.is_file():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md":
            titles = headings(target.read_text())
            if anchor not in {github_anchor(t) for t in titles}:
                broken.append(f"{link}: no heading with GitHub's anchor #{anchor}")
            if target.is_relative_to(DOCS) and anchor not in {mkdocs_anchor(t) for t in titles}:
                broken.append(f"{link}: no heading with MkDocs' anchor #{anchor}")
    assert not broken, f"{relative(page)}: " + "; ".join(broken)


def test_the_link_checker_sees_broken_links(tmp_path):
    """A negative control: a missing file and a missing heading are reported, code is not a link."""
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## Its section: one–two\n")
    page.write_text(
        "[ok](other.md#its-section-onetwo) [gone](missing.md) [no heading](other.md#nothing)\n"
        "`[code](not-a-link.md)`\n```\n[block](not-a-link-either.md)\n```\n"
    )
    assert links(page.read_text()) == ["other.md#its-section-onetwo", "missing.md", "other.md#nothing"]
    with pytest.raises(AssertionError, match=r"missing\.md: no such file.*#nothing"):
        test_every_relative_link_resolves(page)
