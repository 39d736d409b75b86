"""Command line: ``python -m dpreplication.scorecard README SCORECARD`` rewrites the README's scorecard summary."""

from dpreplication.scorecard.pages import main

raise SystemExit(main())
