"""MkDocs hook: the repository files a page links to are published with the site.

The pages link to the figures, tables and sources they discuss the way GitHub reads them, relative
to the page: ``../figures/scorecard.md`` from ``docs/``, ``../../figures/darrm/f3_errors.png`` from
``docs/papers/``. Those files lie outside ``docs_dir``, so MkDocs alone would refuse the links in a
strict build. This hook adds every such file that exists to the site, under ``repository/`` with its
path from the repository root, so MkDocs resolves the link (and shows the image) like any other; a
link to a file that does not exist is left alone and still fails the strict build. Markdown files of
the repository (a scorecard page, the README) are copied as they are, not rendered as pages.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files, InclusionLevel

LINK = re.compile(r"\]\(\s*<?([^)\s#?>]+)")
"""The target of an inline link or image, ``[text](target "title")``, without its anchor or query."""
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
SITE_FOLDER = "repository"


class RepositoryFile(File):
    """A file outside ``docs/``, copied as it is (a Markdown file too: it is not a page of the site)."""

    def is_documentation_page(self) -> bool:
        """Return False: the file is copied, never rendered as a page."""
        return False

    def is_static_page(self) -> bool:
        """Return False: the file is media to MkDocs, whatever its suffix."""
        return False


def repository_targets(page: File, docs: Path) -> set[str]:
    """Return the targets outside ``docs/`` that the page links to and that exist, as MkDocs resolves them."""
    targets = set()
    text = Path(page.abs_src_path).read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if SCHEME.match(target) or target.startswith("/"):
            continue
        uri = posixpath.normpath(posixpath.join(posixpath.dirname(page.src_uri), target))
        if uri.startswith("../") and (docs / uri).resolve().is_file():
            targets.add(uri)
    return targets


def on_files(files: Files, config) -> Files:
    """Add each repository file a page of the site links to."""
    docs = Path(config["docs_dir"])
    pages = [f for f in files if f.is_documentation_page() and not f.inclusion.is_excluded()]
    for uri in sorted(set().union(*(repository_targets(page, docs) for page in pages))):
        if files.get_file_from_path(uri) is None:
            files.append(
                RepositoryFile(
                    uri,
                    str(docs),
                    config["site_dir"],
                    config["use_directory_urls"],
                    dest_uri=f"{SITE_FOLDER}/{uri.removeprefix('../')}",
                    inclusion=InclusionLevel.INCLUDED,
                )
            )
    return files
