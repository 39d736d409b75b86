"""The one loader of the Snakefile, for the tools and tests that read the workflow's rules."""

from pathlib import Path


def load_workflow(snakefile: Path, config: dict | None = None):
    """Return the workflow of ``snakefile`` as Snakemake parses it: its rules and globals.

    ``config`` overrides the configuration as ``--config`` would (the default profile without it).
    """
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    snakefile = Path(snakefile).resolve()
    with SnakemakeApi(OutputSettings()) as api:
        return api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(config=dict(config or {})),
            snakefile=snakefile,
            workdir=snakefile.parent,
        )._workflow
