"""Configuration (base + profile overlay, validated), output locations, code-as-input, rules' settings."""

import functools
import importlib
import os
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.utils import min_version

import dpreplication
from dpreplication.pipeline.environment import (
    check_package_location,
    installed_mismatches,
    library_versions,
    read_lock,
)
from dpreplication.pipeline.code_graph import import_closure
from dpreplication.pipeline.jobs import LOGS_ROOT, RECORDS_ROOT, batch_labels
from dpreplication.pipeline.command_line import override_problems, profile_selection_problem
from dpreplication.pipeline.config import (
    SCHEMA,
    load_yaml,
    merge_config,
    profile_config,
    typed_overrides,
    variant_name,
    with_defaults,
)
from dpreplication.pipeline.config_validation import cross_field_problems, value_problems
from dpreplication.pipeline.instruction_sets import apply_job_environment, cpu_flags, instruction_set_problem

min_version("9.0")


configfile: "config/config.yaml"


# `--profile profiles/quick` selects its config profile through a key file among the profile's
# configfiles; a --configfile on the command line replaces them: stop rather than run another profile.
# Checked by the main process only (Snakemake's parser costs 0.6 s; a cluster job step reparses this file).
if workflow.is_main_process and (_problem := profile_selection_problem(sys.argv, os.environ, config.get("profile"))):
    raise WorkflowError(_problem)
# A key given twice on the command line (Snakemake keeps the last one) or in a --configfile.
if workflow.is_main_process and (_problems := override_problems(sys.argv)):
    raise WorkflowError("\n".join(_problems))

_PROFILES = sorted(p.stem for p in Path("config/profiles").glob("*.yaml"))
if config.get("profile") not in _PROFILES:
    raise ValueError(f"config key 'profile': unknown profile {config.get('profile')!r}; choose one of {_PROFILES}")


# The profile overlay; values given with --config are re-applied on top of it.
configfile: f"config/profiles/{config['profile']}.yaml"


# The profile as committed (base + overlay + schema defaults): a run whose configuration differs from it is a variant.
PROFILE_CONFIG = profile_config(config["profile"], workflow.basedir)
# Snakemake keeps the leaves of a nested `--config section='{key: {sub: 2}}'` as strings:
# give them their YAML types (numbers, booleans, lists) before validation.
config.update(merge_config(config, typed_overrides(workflow.config_settings.config)))
# Validated, every default filled in from the schema (their one home), mappings in schema order.
_resolved = with_defaults(config, Path(workflow.basedir) / SCHEMA)
config.clear()
config.update(_resolved)
for _problem in [
    check_package_location(dpreplication.__file__, workflow.basedir),
    *value_problems(config, load_yaml(Path(workflow.basedir) / SCHEMA)),
    *cross_field_problems(config),
]:
    if _problem:
        raise WorkflowError(_problem)

# Single-threaded BLAS and one instruction set in every job: set, not defaulted, so that a variable
# left in the user's shell cannot change a published number; another set is `--config instruction_set=`.
if _problem := instruction_set_problem(config["instruction_set"], cpu_flags()):
    raise WorkflowError(_problem)
for _variable, _value in apply_job_environment(os.environ, config["instruction_set"]).items():
    logger.warning(
        f"{_variable}={_value} in the environment is replaced by instruction set "
        f"{config['instruction_set']}'s pin; choose another with --config instruction_set=..."
    )

# A stale virtual environment computes with other versions than the references were made with.
if workflow.is_main_process and (
    _stale := installed_mismatches(read_lock(Path(workflow.basedir) / "requirements.lock"))
):
    logger.warning(
        "the installed packages differ from requirements.lock, so results may differ from the "
        f"references (make replicate reinstalls .venv): {'; '.join(_stale)}"
    )

PROFILE = config["profile"]
SEED = config["seed"]
VARIANT = variant_name(config, PROFILE_CONFIG)
config["variant"] = VARIANT
# The default profile publishes into figures/ (what the README and scorecard show); every other
# profile, and every variant (a run whose configuration differs from its profile's, named by
# `--config variant=NAME` or by a hash of the configuration), writes its own tree, so nothing
# overwrites the published figures or another run's.
TREE = VARIANT or PROFILE
FIGURES = "figures" if TREE == "default" else f"results/{TREE}/figures"
WORK = f"results/{TREE}/work"
LOGS = f"{LOGS_ROOT}/{TREE}"
BENCHMARKS = f"{RECORDS_ROOT}/{TREE}"  # at the log's path: a job records its exact usage there (pipeline.jobs)
# Scheduling only: the longest jobs and the chains that lead to them start first, so that a run does
# not end with one core busy and the others idle (in the quick profile the 2-minute teacher ablation
# used to start 412 s into a 534 s run).
CRITICAL_PATH = 10
DATA = config["data"]["directory"]
PACKAGE = Path("src/dpreplication")
SCRIPTS = Path(workflow.basedir) / "workflow" / "scripts"
ENVIRONMENT = "../../environment.yml"
"""The pinned environment, for `--software-deployment-method conda` (rules' `conda:`)."""

ALL_OUTPUTS = []
"""Every published figure and table; rule `all` requests them."""
REPORT_ITEMS = []
"""Every output with a caption, in the order the rules register them: the HTML report shows them (report_html)."""
DRAWINGS = []
"""Every figure's drawing, in the order the rules publish them: drawing.smk makes one rule of each."""
REPORT = "report.html" if TREE == "default" else f"results/{TREE}/report.html"
CLAIM_TABLES = {}
"""paper -> {table name: csv path}: the tables a paper's scorecard claims read."""


wildcard_constraints:
    dataset=r"[A-Za-z0-9_]+",


def script_code(script, *modules):
    """The package source files a rule's script runs, so that editing one reruns the rule and
    editing any other does not.

    They are the import closure (``pipeline.code_graph.import_closure``) of the script
    (``workflow/scripts/<script>``) and of ``modules``, files under src/dpreplication that the
    script imports by name at run time (a drawing rule's plotting module), with the
    ``__init__.py`` files that importing them runs. A script that comes to import another module
    has it added here the next time the workflow is read, and reruns.
    """
    roots = [(SCRIPTS / script).resolve(), *((PACKAGE / module).resolve() for module in modules)]
    files = set(roots[1:]).union(*(import_closure(root) for root in roots))
    package = PACKAGE.resolve()
    files |= {
        parent / "__init__.py" for path in list(files) for parent in path.parents if parent.is_relative_to(package)
    }
    if any(package / "plotting" in path.parents for path in files):
        files.add(package / "plotting" / "matplotlibrc")
    return sorted(os.path.relpath(f) for f in files)


def published(paper, name, kinds, caption=None, *, drawing=None, tables=None):
    """Output paths of one figure or table under FIGURES/<paper>/, keyed by kind
    (csv, md, json; ledger: the privacy ledger of its points, <name>.ledger.csv). With a caption
    (a file in workflow/report/), the table's CSV goes into the HTML report (and `snakemake --report`).

    A figure names its ``drawing``, a function ``"module.function"`` of dpreplication.plotting: its
    PNG, <name>.png, and vector PDF, <name>.pdf, are then not outputs of the computing rule but of the light rule
    draw_<paper>_<name> (drawing.smk), which calls the function on the published ``tables`` (names
    in the same folder; default this one) and the drawing arguments in this table's sidecar; the
    caption then goes with the PNG.
    """
    paths = {kind: f"{FIGURES}/{paper}/{name}.{'ledger.csv' if kind == 'ledger' else kind}" for kind in kinds}
    register(paper, paths.values())
    if drawing is not None:
        png, pdf = f"{FIGURES}/{paper}/{name}.png", f"{FIGURES}/{paper}/{name}.pdf"
        register(paper, [png, pdf])
        DRAWINGS.append(
            {
                "paper": paper,
                "name": name,
                "function": drawing,
                "png": png,
                "pdf": pdf,
                "sidecar": paths["json"],
                "tables": [f"{FIGURES}/{paper}/{table}.csv" for table in (tables or [name])],
                "caption": caption,
            }
        )
        if caption is not None:
            REPORT_ITEMS.append(
                {
                    "paper": paper,
                    "name": name,
                    "path": png,
                    "sidecar": paths["json"],
                    "caption": f"workflow/report/{caption}",
                }
            )
    elif caption is not None:
        REPORT_ITEMS.append(
            {
                "paper": paper,
                "name": name,
                "path": paths["csv"],
                "sidecar": paths.get("json"),
                "caption": f"workflow/report/{caption}",
            }
        )
        paths["csv"] = report(paths["csv"], caption=f"../report/{caption}", category=paper)
    return paths


FIGURE = ("csv", "json")
"""A figure's table and sidecar: its PNG is drawn by its drawing rule (``published(..., drawing=...)``)."""
TABLE = ("csv", "md", "json")
PRIVATE_FIGURE = (*FIGURE, "ledger")
"""A figure of private releases: its points' privacy ledger is published beside it."""
PRIVATE_TABLE = (*TABLE, "ledger")


def settings(path):
    """The config section at ``path`` ("paper/figure"): what a rule's inputs are expanded over."""
    section = config
    for key in path.split("/"):
        section = section[key]
    return section


RULE_SETTINGS = {
    paper: importlib.import_module(f"dpreplication.replications.{paper}.rule_settings")
    for paper in ("permute_and_flip", "truncated_laplace", "darrm", "privgene")
}
"""Paper -> its settings module, whose ``rule_settings(rule, config[paper], wildcards)`` shapes every
``settings`` param of its rules (light modules: the DAG is built without torch)."""


def rule_settings(paper, name):
    """Params function: the ``settings`` of ``paper``'s rule ``name`` (without the paper's prefix)
    for a job's wildcards, from the paper's one settings function of the validated ``config[paper]``;
    every paper's rules take their settings so (``tests/test_rule_settings.py``)."""
    shapes = RULE_SETTINGS[paper]
    if name not in shapes.RULES:
        raise WorkflowError(f"no settings for {paper}'s rule {name!r}, known are {sorted(shapes.RULES)}")

    def job_settings(wildcards):
        return shapes.rule_settings(name, config[paper], wildcards)

    job_settings.paper, job_settings.rule = paper, name
    return job_settings


def register(paper, paths):
    """Publish ``paths`` (rule `all`); the CSVs become claim tables named by file stem.

    Called by :func:`published` for every path it names, so a rule's published outputs are
    registered where they are declared, never by hand.
    """
    ALL_OUTPUTS.extend(paths)
    for path in paths:
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


def darrm_dataset_files(wildcards):
    """The verified IDX files of one private-prediction dataset (fetched by rule fetch_data_file)."""
    from dpreplication.data import DATASETS

    return [f"{DATA}/{wildcards.dataset}/{data_file.name}" for data_file in DATASETS[wildcards.dataset].files]


def data_probe(paper_settings):
    """Params function: what the availability probe of dataset ``{dataset}`` depends on, the data
    directory, the mirror and which of its files are there now (so that adding a file or a mirror
    reruns the probe), then ``paper_settings`` (a :func:`rule_settings`: the probe's timeout)."""

    @functools.wraps(paper_settings)
    def probe(wildcards):
        from dpreplication.data import DATASETS
        from dpreplication.data.fetch import availability, resolve_mirror

        mirror = resolve_mirror(config["data"]["mirror"])
        present = []
        if mirror is not None or all(
            Path(DATA, wildcards.dataset, f.name).is_file() for f in DATASETS[wildcards.dataset].files
        ):
            present = sorted(availability(wildcards.dataset, DATA, mirror)["files"])
        return {
            "directory": DATA,
            "mirror": str(mirror) if mirror else None,
            "present": present,
            **paper_settings(wildcards),
        }

    return probe


def _darrm_prediction_input_name(output, dataset, kind=None):
    """The name of a cached-teacher input: ``status_<dataset>`` or ``<output>_<dataset>_<kind>``."""
    return f"status_{dataset}" if kind is None else f"{output}_{dataset}_{kind}"


def darrm_prediction_inputs(output):
    """Input function: every dataset's availability status and, for each available dataset, the
    ``output`` ("votes" or "teachers") of its private and non-private teachers. Unavailable
    datasets need nothing more: their table rows say "needs download"."""
    import json

    from dpreplication.replications.darrm.rule_settings import KINDS

    def inputs(wildcards):
        files = {}
        for dataset in settings("darrm/private_prediction")["datasets"]:
            status = checkpoints.darrm_prediction_data.get(dataset=dataset).output[0]
            files[_darrm_prediction_input_name(output, dataset)] = status
            if json.loads(Path(status).read_text())["available"]:
                for kind in KINDS:
                    files[_darrm_prediction_input_name(output, dataset, kind)] = expand(
                        rules.darrm_prediction_teachers.output[output], dataset=dataset, kind=kind
                    )[0]
        return files

    return inputs


def darrm_prediction_files(output):
    """Params function: the inputs of :func:`darrm_prediction_inputs` by dataset, as the scripts
    read them: ``{"status": {dataset: path}, output: {dataset: {kind: path}}}`` (the latter for the
    available datasets only). Until the availability checkpoints have run, the inputs and so this
    mapping are partial; Snakemake re-evaluates both before the job runs."""
    from dpreplication.replications.darrm.rule_settings import KINDS

    def files(wildcards, input):
        named = dict(input.items())
        statuses, cached = {}, {}
        for dataset in settings("darrm/private_prediction")["datasets"]:
            if (status := _darrm_prediction_input_name(output, dataset)) in named:
                statuses[dataset] = named[status]
            names = {kind: _darrm_prediction_input_name(output, dataset, kind) for kind in KINDS}
            if all(name in named for name in names.values()):
                cached[dataset] = {kind: named[name] for kind, name in names.items()}
        return {"status": statuses, output: cached}

    return files


def darrm_ablation_idx(wildcards):
    """The verified IDX files of the ablated dataset."""
    from types import SimpleNamespace

    return darrm_dataset_files(SimpleNamespace(dataset=settings("darrm/teacher_ablation")["dataset"]))


def darrm_ablation_inputs(wildcards):
    """The ablated dataset's availability and, when it is available, its IDX files, the pipeline's
    private and non-private votes (the stated configuration's check; GNMax) and every
    configuration's teachers."""
    import json

    ablation = settings("darrm/teacher_ablation")
    status = checkpoints.darrm_prediction_data.get(dataset=ablation["dataset"]).output[0]
    files = {"status": status}
    if json.loads(Path(status).read_text())["available"]:
        files["idx"] = darrm_ablation_idx(wildcards)
        for kind in ("private", "nonprivate"):
            files[f"votes_{kind}"] = expand(
                rules.darrm_prediction_teachers.output.votes, dataset=ablation["dataset"], kind=kind
            )[0]
        for config in ablation["configs"]:
            for output in ("votes", "teachers"):
                files[f"{output}_{config['name']}"] = expand(
                    rules.darrm_prediction_teacher_ablation_config.output[output], config=config["name"]
                )[0]
    return files


def darrm_replicate_inputs(wildcards):
    """Input function: every dataset's availability status and, for each available dataset, the
    votes of its private and non-private teachers under each seed replicate (0: the pipeline's)."""
    import json

    from dpreplication.replications.darrm.rule_settings import KINDS

    section = settings("darrm/private_prediction")
    files = {}
    for dataset in section["datasets"]:
        status = checkpoints.darrm_prediction_data.get(dataset=dataset).output[0]
        files[f"status_{dataset}"] = status
        if json.loads(Path(status).read_text())["available"]:
            for replicate in range(section["seeds"]):
                teachers = (
                    rules.darrm_prediction_teachers if replicate == 0 else rules.darrm_prediction_teacher_replicate
                )
                for kind in KINDS:
                    for output in ("votes", "teachers"):
                        files[f"{output}_{dataset}_{kind}_{replicate}"] = expand(
                            teachers.output[output], dataset=dataset, kind=kind, replicate=replicate
                        )[0]
    return files


def darrm_replicate_files(wildcards, input):
    """Params function: :func:`darrm_replicate_inputs` as the script reads them,
    ``{"status": {dataset: path}, "votes": {dataset: [{kind: path}, ...]}, "teachers": (the same)}``."""
    from dpreplication.replications.darrm.rule_settings import KINDS

    named, section = dict(input.items()), settings("darrm/private_prediction")
    statuses, files = {}, {"votes": {}, "teachers": {}}
    for dataset in section["datasets"]:
        if f"status_{dataset}" in named:
            statuses[dataset] = named[f"status_{dataset}"]
        for output, by_dataset in files.items():
            seeds = [
                {kind: named.get(f"{output}_{dataset}_{kind}_{r}") for kind in KINDS} for r in range(section["seeds"])
            ]
            if all(path is not None for seed in seeds for path in seed.values()):
                by_dataset[dataset] = seeds
    return {"status": statuses, **files}


# ---------------------------------------------------------------- PrivGene (spec shared/specs/privgene.md)
from dpreplication.replications.privgene.datasets import DATASETS as PRIVGENE_DATASETS  # noqa: E402
from dpreplication.replications.privgene.rule_settings import c_label  # noqa: E402


def privgene_data(name):
    """The encoded, scaled table of a PrivGene dataset (Table 2 name)."""
    return f"{WORK}/privgene/data/{name}.npz"


def privgene_raw_files(name):
    """Verified raw files of a PrivGene dataset; a configured IPUMS BR extract replaces the BR stand-in."""
    extract = settings("privgene/data")["br_extract"]
    if name == "BR" and extract:
        return [extract]
    spec = PRIVGENE_DATASETS[name]
    return [f"{DATA}/{spec.catalog}/{filename}" for filename in spec.files]


def repetition_batches(count, job=None):
    """Repetitions (or k-means runs) ``0..count-1`` as the batch labels of the job rules:
    ``privgene.repetitions_per_job`` consecutive repetitions per job (for the job rule
    ``privgene_<job>``, its own size where ``privgene.repetitions_per_job_by_rule`` gives one), each
    seeded by its own index."""
    section = settings("privgene")
    return batch_labels(count, section["repetitions_per_job_by_rule"].get(job) or section["repetitions_per_job"])


def privgene_jobs(pattern, figure, **wildcards):
    """Every job output of ``figure``: ``pattern`` expanded over ``wildcards`` and its repetition batches."""
    return expand(pattern, repetitions=repetition_batches(settings(f"privgene/{figure}")["repetitions"]), **wildcards)


def privgene_tuned_c():
    """NoPrivacy's SVM needs each reference dataset's tuned C (none when no reference job fits an SVM)."""
    section = settings("privgene/reference")
    if "NoPrivacy" not in section["methods"] or "svm" not in section["tasks"]:
        return []
    return expand(rules.privgene_svm_c.output[0], pg_dataset=section["datasets"])


def privgene_references(figure):
    """The reference jobs (NoPrivacy and Majority on every reference dataset and task) of the
    repetitions of ``figure``; the configuration check makes sure they cover what it reads."""
    return expand(
        rules.privgene_reference_job.output[0],
        repetitions=repetition_batches(settings(f"privgene/{figure}")["repetitions"]),
    )


def privgene_paper_r_jobs(ablation_job):
    """The ablation jobs: every configured US/BR dataset and batch of repetitions (both tasks in a job)."""
    section = settings("privgene/comparison")
    return expand(
        ablation_job, pg_dataset=section["paper_r"]["datasets"], repetitions=repetition_batches(section["repetitions"])
    )


def privgene_comparison_jobs(job, tasks=None, datasets=None):
    """Every job output behind Figs 3–4 (or only ``tasks``' figures, ``datasets``' panels): ``job``
    per configured (dataset, task, repetition batch), each running every method of its task's
    series but NoPrivacy, which is read from the reference jobs."""
    section = settings("privgene/comparison")
    drawn = [task for task in section["methods"] if tasks is None or task in tasks]
    return expand(
        job,
        task=drawn,
        pg_dataset=section["datasets"] if datasets is None else datasets,
        repetitions=repetition_batches(section["repetitions"], "comparison_job"),
    )


def privgene_comparison_references(tasks=None):
    """The reference jobs of the same repetitions (same folds, nothing rerun) when a Figs 3–4 task
    (of ``tasks``, default all) draws NoPrivacy."""
    section = settings("privgene/comparison")
    drawn = [
        task
        for task, methods in section["methods"].items()
        if "NoPrivacy" in methods and (tasks is None or task in tasks)
    ]
    return privgene_references("comparison") if drawn else []


def privgene_kmeans_jobs(pattern):
    """Every Fig. 5 job output: ``pattern`` per configured (dataset, k) and batch of runs, each
    job running every configured method."""
    section = settings("privgene/comparison")["kmeans"]
    return [
        path
        for dataset, ks in section["panels"].items()
        for path in expand(pattern, pg_dataset=dataset, k=ks, repetitions=repetition_batches(section["runs"]))
    ]


def privgene_second_stage_jobs(wildcards, tasks=None):
    """The second-stage comparison jobs (of ``tasks``' figures, default all) that the plan of the
    checkpoint ``privgene_comparison_plan`` asks for: per planned cell, the repetitions after the
    first stage's, in batches of ``privgene.repetitions_per_job`` (NoPrivacy's cells are ε-free)."""
    import pandas as pd

    plan = pd.read_csv(checkpoints.privgene_comparison_plan.get().output[0])
    first = settings("privgene/comparison")["repetitions"]
    size = settings("privgene")["repetitions_per_job"]
    return [
        rules.privgene_comparison_extra_job.output[0].format(
            pg_dataset=cell.dataset,
            task=cell.task,
            method=cell.method,
            repetitions=f"{start}-{min(start + size, cell.repetitions) - 1}",
            epsilon="free" if cell.method == "NoPrivacy" else f"{cell.epsilon:g}",
        )
        for cell in plan.itertuples(index=False)
        if tasks is None or cell.task in tasks
        for start in range(first, int(cell.repetitions), size)
    ]


def privgene_extra_tuned_c(wildcards):
    """NoPrivacy's SVM needs its dataset's tuned C."""
    if (wildcards.method, wildcards.task) != ("NoPrivacy", "svm"):
        return []
    return [rules.privgene_svm_c.output[0].format(pg_dataset=wildcards.pg_dataset)]
