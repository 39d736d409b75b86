"""Configuration (base + profile overlay, validated), output locations, code-as-input."""

import os
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")

configfile: "config/config.yaml"

_PROFILES = sorted(p.stem for p in Path("config/profiles").glob("*.yaml"))
if config.get("profile") not in _PROFILES:
    raise ValueError(f"config key 'profile': unknown profile {config.get('profile')!r}; choose one of {_PROFILES}")

# The profile overlay; values given with --config are re-applied on top of it.
configfile: f"config/profiles/{config['profile']}.yaml"

validate(config, "../schemas/config.schema.yaml", set_default=True)

# Single-threaded BLAS in every job keeps floating-point sums bit-stable; jobs run in parallel instead.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

PROFILE = config["profile"]
SEED = config["seed"]
# The default profile publishes into figures/ (what the README and scorecard show);
# every other profile writes its own tree, so profiles never overwrite each other.
FIGURES = "figures" if PROFILE == "default" else f"results/{PROFILE}/figures"
WORK = f"results/{PROFILE}/work"
LOGS = f"logs/{PROFILE}"
BENCHMARKS = f"benchmarks/records/{PROFILE}"
DATA = config["data"]["directory"]
PACKAGE = Path("src/dpreplication")
ENVIRONMENT = "../../environment.yml"
"""The pinned environment, for `--software-deployment-method conda` (rules' `conda:`)."""

ALL_OUTPUTS = []
"""Every published figure and table; rule `all` requests them."""
CLAIM_TABLES = {}
"""paper -> {table name: csv path}: the tables a paper's scorecard claims read."""

wildcard_constraints:
    dataset=r"[A-Za-z0-9_]+",


def code_inputs(*modules):
    """The package source files a rule depends on, so editing them reruns it.

    ``modules`` are paths under src/dpreplication (a module file or a subpackage);
    the core modules every script uses are always included.
    """
    core = ["__init__.py", "numerics.py", "seeding.py", "provenance.py", "workflow.py", "plotting"]
    files = []
    for module in core + list(modules):
        path = PACKAGE / module
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    files.append(PACKAGE / "plotting" / "matplotlibrc")
    return sorted({str(f) for f in files})


def published(paper, name, kinds, caption=None):
    """Output paths of one figure or table under FIGURES/<paper>/, keyed by kind
    (png, csv, md, json). With a caption (a file in workflow/report/), the PNG —
    or, for a table, the CSV — goes into `snakemake --report`."""
    paths = {kind: f"{FIGURES}/{paper}/{name}.{kind}" for kind in kinds}
    if caption is not None:
        shown = "png" if "png" in paths else "csv"
        paths[shown] = report(paths[shown], caption=f"../report/{caption}", category=paper)
    return paths


FIGURE = ("png", "csv", "json")
TABLE = ("csv", "md", "json")


def settings(path):
    """The config section at ``path`` ("paper/figure"), passed to a script as params."""
    section = config
    for key in path.split("/"):
        section = section[key]
    return section


def register(paper, rule_output):
    """Publish a rule's outputs (rule `all`); its CSVs become claim tables named by file stem."""
    ALL_OUTPUTS.extend(rule_output)
    for path in rule_output:
        if path.endswith(".csv"):
            CLAIM_TABLES.setdefault(paper, {})[Path(path).stem] = path


def dpbench_file(dataset):
    """The verified DPBench histogram file of ``dataset`` (e.g. HEPTH)."""
    return f"{DATA}/dpbench_1d/{dataset}.n4096.npy"


def pf_histograms(vectors):
    """DPBench files needed by permute-and-flip score vectors named '<DATASET>-<task>'."""
    return {v.split("-")[0]: dpbench_file(v.split("-")[0]) for v in vectors if "-" in v}


def claim_registry(paper):
    return f"workflow/claims/{paper}.yaml"


def darrm_settings(figure, lp=False):
    """A figure's config section; for figures that solve the γ LP, with the configured solver."""
    section = dict(settings(f"darrm/{figure}"))
    return {**section, "solver": settings("darrm/solver")} if lp else section


def darrm_lp_cases():
    """The LPs behind the γ-shape figures listed in darrm.lp_diagnostics.figures."""
    cases = []
    for figure in settings(f"darrm/lp_diagnostics")["figures"]:
        section = settings(f"darrm/{figure}")
        cases.append({"setting": figure, "K": section["K"], "ms": section["ms"], "epsilon": section["epsilon"],
                      "Delta": section.get("Delta", 0.0), "composition": section.get("composition", "general"),
                      "mean_probability": section["mean_probability"]})
    return {"cases": cases, "solver": settings("darrm/solver")}
