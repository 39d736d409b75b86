"""Checks of a Snakemake command line that the configuration it produces cannot show.

A key given twice in ``--config``, a ``--configfile`` its YAML reader refuses, and a Snakemake
profile that selects another config profile than the run's. The workflow's main process runs them
(``workflow/rules/common.smk``).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from dpreplication.pipeline.config import load_yaml


def override_problems(argv: list[str]) -> list[str]:
    """Return the problems of a Snakemake command line's ``--config`` values and ``--configfile`` files.

    A key given twice in ``--config`` (Snakemake keeps the last, so ``profile=quick profile=default``
    silently ran the default profile, which publishes), and a ``--configfile`` that its YAML reader
    refuses (a key given twice in one mapping, an alias bomb, over 1 MB), each named.
    """
    from snakemake.cli import get_argument_parser

    from dpreplication.validation import yaml_file

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parsed, _ = get_argument_parser().parse_known_args(argv[1:])
    except SystemExit:
        return []
    keys = [item.split("=", 1)[0] for item in parsed.config or []]
    problems = [
        f"--config gives key {key!r} {keys.count(key)} times; give it once"
        for key in dict.fromkeys(keys)
        if keys.count(key) > 1
    ]
    import yaml

    for path in parsed.configfile or []:
        try:
            yaml_file(path)
        except (OSError, ValueError, yaml.YAMLError) as error:
            problems.append(f"--configfile {path}: {error}")
    return problems


def requested_profiles(argv: list[str], environ) -> list[tuple[str, str]]:
    """Return the ``(option, folder)`` of every profile a Snakemake command line selects.

    Read by Snakemake's own parser: every ``--profile`` (in any spelling argparse accepts, such as
    ``--prof``; else ``$SNAKEMAKE_PROFILE``), then ``--workflow-profile``. ``argv`` is the whole
    command line; one Snakemake's parser refuses is not a Snakemake command line (the workflow
    parsed from Python, e.g. by ``pytest -q``) and selects none.
    """
    from snakemake.cli import get_argument_parser

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parsed, _ = get_argument_parser().parse_known_args(argv[1:])
    except SystemExit:
        return []
    profiles = parsed.profile or ([environ["SNAKEMAKE_PROFILE"]] if environ.get("SNAKEMAKE_PROFILE") else [])
    chosen = [("--profile", folder) for folder in profiles]
    if parsed.workflow_profile and parsed.workflow_profile != "none":
        chosen.append(("--workflow-profile", parsed.workflow_profile))
    return chosen


def profile_selection_problem(argv: list[str], environ, profile: str) -> str:
    """``""`` unless a profile of the command line selects another config profile than this run's.

    ``DIR/profile-key.yaml`` holds a profile's selection; the problem returned says how to fix the
    command line. A ``--configfile`` on the command line replaces the profile's ``configfiles`` (so
    its key silently drops out), and ``--config profile=…`` overrides it.
    """
    for option, chosen in requested_profiles(argv, environ):
        key_file = Path(chosen) / "profile-key.yaml"
        selected = load_yaml(key_file).get("profile") if key_file.is_file() else None
        if selected not in (None, profile):
            return (
                f"{option} {chosen} selects config profile {selected!r} ({key_file}), but this run's configuration "
                f"has profile {profile!r}: a --configfile on the command line replaces the profile's configfiles, "
                f"and --config profile=... overrides it. Pass the key file too (--configfile {key_file} YOUR.yaml) "
                f"or add --config profile={selected}"
            )
    return ""
