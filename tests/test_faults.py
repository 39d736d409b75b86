"""Faults injected on purpose: each must stop the run naming the key, the file or the checksum,
or be repaired (a deleted raw file is fetched again) — never reach a figure silently.

Every fault is injected into a temporary copy (of a raw file, of the configuration, of the
checkout), never into the working tree. The Snakemake-level tests run in a copy of the checkout
(:func:`checkout`); those that run jobs are marked ``workflow``. docs/faults.md lists the cases
with the messages these tests check.
"""

from __future__ import annotations

import copy
import functools
import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from checkout_copy import copy_checkout

from dpreplication.data import DATASETS, DataIntegrityError, fetch, idx, loaders, tabular
from dpreplication.data.fetch import MIRROR_ENV
from dpreplication.pipeline.command_line import override_problems, profile_selection_problem, requested_profiles
from dpreplication.pipeline.config import (
    BASE_CONFIG,
    PROFILES,
    load_yaml,
    merge_config,
    profile_config,
    variant_name,
    with_defaults,
)
from dpreplication.pipeline.config_validation import cross_field_problems
from dpreplication.pipeline.environment import library_versions

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
SMALL_RUN = ("--max-jobs-per-timespan", "100/1s")
"""A run of a few jobs: the workflow profile's 50/10s keeps a finished run waiting for its timer
(measured: 15.6 s against 7.2 s for one table); scheduling every second costs nothing here."""
MIRROR = Path(os.environ[MIRROR_ENV]) if os.environ.get(MIRROR_ENV) else None
OPTIONAL_LIBRARIES = ("opendp", "diffprivlib", "autodp", "opacus", "torch")
"""The extras' libraries (dp-accounting is a core dependency: the privacy ledger composes with it)."""


# =========================================================================== data integrity at use


def raw_copy(dataset: str, name: str, directory: Path) -> Path:
    """A verified copy of a catalogue file in ``directory/<dataset>/<name>``, the layout of data/raw."""
    folder = DATASETS[dataset].mirror_directory or dataset
    if MIRROR is None or not any((MIRROR / folder / f).is_file() for f in (name, f"{name}.gz")):
        pytest.skip(f"the data mirror lacks {folder}/{name}")
    return fetch(dataset, name, directory / dataset / name, MIRROR)


def flip_one_digit(path: Path) -> None:
    """Corrupt ``path`` so that it still parses: XOR 1 on the last byte of a binary file (one count
    or label changes by one) or on the last ASCII digit of a text file ('8' ↔ '9')."""
    content = bytearray(path.read_bytes())
    binary = path.suffix == ".npy" or "-idx" in path.name
    position = -1 if binary else max(content.rfind(digit) for digit in b"0123456789")
    content[position] ^= 1
    path.write_bytes(bytes(content))


READERS = {
    "dpbench npy": ("dpbench_1d", "HEPTH.n4096.npy", loaders, loaders.load_dpbench_histogram),
    "MNIST IDX": ("mnist", "t10k-labels-idx1-ubyte", idx, idx.read_idx_labels),
    "LIBSVM a9a": ("adult_libsvm", "a9a.t", tabular, functools.partial(tabular.read_libsvm_binary, n_features=123)),
    "UCI bank csv": ("bank", "bank-full.csv", tabular, tabular.encode_bank),
    "NIST ACS csv": ("census_us_acs", "national2019.csv", tabular, tabular.encode_acs_income),
    "Lifesci csv": ("lifesci", "ds1.10.csv", tabular, tabular.encode_lifesci),
    "UCI Adult csv": (
        "uci_adult", "adult.test", tabular,
        lambda test: tabular.read_uci_adult(raw_copy("uci_adult", "adult.data", test.parents[1]), test),
    ),
}  # fmt: skip
"""Every reader of a raw file: (dataset, file, the module whose ``verified`` it calls, reader)."""


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_verifies_a_raw_file_corrupted_after_its_fetch(reader, tmp_path, monkeypatch):
    """A one-digit change that still parses stops every reader, naming the file, the expected
    SHA256 and the fix; without the check (negative control) the same file is read silently."""
    dataset, name, module, read = READERS[reader]
    local = raw_copy(dataset, name, tmp_path / "raw")
    read(local)
    flip_one_digit(local)
    expected = DATASETS[dataset].file(name).sha256
    with pytest.raises(DataIntegrityError) as caught:
        read(local)
    assert str(caught.value).startswith(f"data file {local} is corrupt: content SHA256 ")
    assert f"expected {expected}; delete {local} and rerun to fetch it again" in str(caught.value)
    monkeypatch.setattr(module, "verified", Path)  # the reader without its check accepts the corrupt file
    read(local)


def test_a_compressed_or_truncated_local_copy_is_corrupt_not_undecodable(tmp_path):
    """Local copies are stored decompressed and hashed as stored: a gzip of the right content, or a
    truncated gzip, is a corrupt file named with its checksum, never a parser's or gzip's error."""
    local = raw_copy("mnist", "t10k-labels-idx1-ubyte", tmp_path / "raw")
    content = local.read_bytes()
    expected = DATASETS["mnist"].file(local.name).sha256
    for packed in (gzip.compress(content), gzip.compress(content)[:-30]):
        local.write_bytes(packed)
        with pytest.raises(
            DataIntegrityError, match=f"{local} is corrupt \\(it is gzip-compressed.*expected {expected}"
        ):
            idx.read_idx_labels(local)
    local.write_bytes(content)
    assert idx.read_idx_labels(local).shape == (10_000,)


# =========================================================================== configuration


SCHEMA = str(REPO / "workflow/schemas/config.schema.yaml")


def replace(path: str, value):
    """A fault: the value at the dotted ``path`` (a number indexes a list) replaced by ``value``."""

    def inject(config):
        *parents, leaf = [int(key) if key.isdigit() else key for key in path.split(".")]
        for key in parents:
            config = config[key]
        config[leaf] = value

    return inject


def both(*faults):
    return lambda config: [fault(config) for fault in faults]


def drop_ablated_dataset(config):
    del config["darrm"]["private_prediction"]["datasets"]["fashion_mnist"]
    config["darrm"]["teacher_ablation"]["dataset"] = "fashion_mnist"


PP, TA = "darrm.private_prediction", "darrm.teacher_ablation"
CROSS_FIELD_FAULTS = {
    "m > K": (replace("darrm.f2_gamma_shapes.ms", [3, 13]), "'darrm.f2_gamma_shapes.ms': [13] not in [1, K] with K = 11"),
    "m > teachers": (replace(f"{PP}.ms", [12]), f"'{PP}.ms': [12] not in [1, K] with K = 11"),
    "same classes": (replace(f"{PP}.classes", [5, 5]), f"'{PP}.classes': [5, 5] must be two different classes"),
    "shards exceed the data": (
        both(replace(f"{PP}.shard_size", 1000), replace(f"{PP}.train_size", 10000)),
        f"'{PP}.shard_size': 11 teachers × 1000 images exceed train_size = 10000",
    ),
    "ablated teachers > K": (replace(f"{TA}.teachers", 12), f"'{TA}.teachers': 12 not in [1, K] with K = {PP}.teachers = 11"),
    "ablation m > K": (replace(f"{TA}.m", 13), f"'{TA}.m': 13 not in [1, K]"),
    "ablated dataset": (drop_ablated_dataset, f"'{TA}.dataset': 'fashion_mnist' is not one of {PP}.datasets ['mnist']"),
    "ablation budget": (replace(f"{TA}.configs.1.budget", "iclr"), f"'{TA}.configs[1].budget': 'iclr' is not one of ['stated', 'authors_iclr']"),
    "ablation epochs": (replace(f"{TA}.configs.1.epochs", None), f"'{TA}.configs[1].epochs': null (the pipeline's protocol) needs budget 'stated'"),
    "reference c": (replace("privgene.choice_of_c.reference_c", 6e-4), "'privgene.choice_of_c.reference_c': 0.0006 is not in privgene.choice_of_c.c_grid"),
    "paper-r budget": (replace("privgene.comparison.paper_r.epsilons", [0.3]), "'privgene.comparison.paper_r.epsilons': [0.3] not in privgene.comparison.epsilons"),
    "fold number": (replace("privgene.protocol.use_folds", [0, 5]), "'privgene.protocol.use_folds': [5] not in [0, folds) with folds = 5"),
    "EEM without EM": (replace("privgene.eem_vs_em.variants", ["EEM", "EEM-RNMExp"]), "'privgene.eem_vs_em.variants': ['EEM', 'EEM-RNMExp'] must hold both EEM and EM"),
    "reference datasets": (replace("privgene.reference.datasets", ["Adult", "US", "BR"]), "'privgene.reference.datasets': ['Adult', 'US', 'BR'] lacks ['Banking'], which privgene.comparison.datasets and privgene.ablations.baseline_checks.datasets read"),
    "reference tasks": (replace("privgene.reference.tasks", ["lr"]), "'privgene.reference.tasks': ['lr'] lacks ['svm'], which privgene.comparison.methods and privgene.eem_vs_em.tasks read"),
    "scipy solver": (replace("truncated_laplace.lp_optimum.solver", "higs"), "'truncated_laplace.lp_optimum.solver': 'higs' is not a scipy linprog method"),
    "cvxpy solver": (
        both(replace("truncated_laplace.lp_optimum.backend", "cvxpy"), replace("truncated_laplace.lp_optimum.solver", "CLARABELL")),
        "'truncated_laplace.lp_optimum.solver': 'CLARABELL' is not an installed cvxpy solver",
    ),
}  # fmt: skip
"""Values the schema accepts that the code would reject mid-run: (injection, start of the message
after "config key ")."""


@pytest.mark.parametrize("fault", sorted(CROSS_FIELD_FAULTS))
def test_a_value_the_schema_accepts_but_the_code_rejects_is_named_by_its_key(fault):
    """The schema accepts each value (validation alone would start the jobs); the cross-field
    check, run before any job, names the key. The committed configuration is the control."""
    from snakemake.utils import validate

    config = profile_config("default", REPO)
    assert cross_field_problems(config) == []
    inject, message = CROSS_FIELD_FAULTS[fault]
    inject(config)
    validate(copy.deepcopy(config), SCHEMA, set_default=True)
    problems = cross_field_problems(config)
    assert len(problems) == 1 and problems[0].startswith(f"config key {message}"), problems


@pytest.mark.parametrize("profile", ["default", "quick", "paper"])
def test_every_committed_profile_is_consistent(profile):
    assert cross_field_problems(profile_config(profile, REPO)) == []


def committed_copy(target: Path, *more: Path) -> None:
    """Commit copies of the base config, the default overlay, the schema and ``more`` in a new repository at ``target``."""
    for name in (BASE_CONFIG, PROFILES / "default.yaml", Path("workflow/schemas/config.schema.yaml"), *more):
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, target / name)
    git = ["git", "-C", str(target), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "committed configuration"], check=True)


def test_a_hand_edited_config_file_makes_a_variant(tmp_path):
    """An edit of config/config.yaml (or a profile's overlay) not committed is a variant: it used to
    be the profile itself and write figures/, with only ``dirty: true`` in the sidecar to tell."""
    committed_copy(tmp_path, PROFILES / "quick.yaml")
    committed = profile_config("default", tmp_path)
    assert variant_name(committed, profile_config("default", tmp_path)) == ""
    edited = load_yaml(tmp_path / BASE_CONFIG)
    edited["seed"] = 7
    (tmp_path / BASE_CONFIG).write_text(yaml.safe_dump(edited))
    assert profile_config("default", tmp_path) == committed  # the committed file, not the edit
    resolved = with_defaults(
        merge_config(edited, load_yaml(tmp_path / PROFILES / "default.yaml")),
        tmp_path / "workflow/schemas/config.schema.yaml",
    )
    assert variant_name(resolved, profile_config("default", tmp_path)).startswith("default-")


def test_a_hand_edited_schema_default_makes_a_variant(tmp_path):
    """The schema is the defaults' one home: a default edited and not committed changes what the profile
    computes, so it is a variant too (the profile used to be read with the edited schema, and wrote
    figures/)."""
    schema = Path("workflow/schemas/config.schema.yaml")
    committed_copy(tmp_path)
    cap = "max_repetitions: {type: integer, minimum: 1, default: 100,"
    edited = (tmp_path / schema).read_text().replace(cap, cap.replace("100", "99"), 1)
    assert edited != (tmp_path / schema).read_text()
    (tmp_path / schema).write_text(edited)
    config = merge_config(load_yaml(tmp_path / BASE_CONFIG), load_yaml(tmp_path / PROFILES / "default.yaml"))
    resolved = with_defaults(config, tmp_path / schema)
    committed = profile_config("default", tmp_path)
    assert resolved["privgene"]["comparison"]["second_stage"]["max_repetitions"] == 99
    assert committed["privgene"]["comparison"]["second_stage"]["max_repetitions"] == 100
    assert variant_name(resolved, committed).startswith("default-")


def test_a_key_given_twice_on_the_command_line_or_in_a_configfile_is_refused(tmp_path):
    """Snakemake keeps the last of ``--config profile=quick profile=default`` (the default profile, which
    publishes) and PyYAML the last of a mapping's repeated keys: both are refused, naming the key."""
    argv = ["snakemake", "-n", "--config", "profile=quick", "seed=3", "profile=default"]
    assert override_problems(argv) == ["--config gives key 'profile' 2 times; give it once"]
    assert override_problems(["snakemake", "--config", "profile=quick", "seed=3"]) == []
    mine = tmp_path / "mine.yaml"
    mine.write_text("seed: 3\nprivgene:\n  comparison:\n    repetitions: 4\n    repetitions: 40\n")
    assert override_problems(["snakemake", "--configfile", str(mine)]) == [
        f"--configfile {mine}: {mine}: key 'repetitions' is given twice in one mapping (lines 4 and 5)"
    ]


def test_a_key_given_twice_stops_the_run(checkout):
    result = run_workflow(checkout, "-n", "pf_tv_convergence", "--config", "profile=quick", "profile=default")
    assert result.returncode != 0 and "--config gives key 'profile' 2 times" in output(result), output(result)[-3000:]
    assert "Job stats" not in output(result)


def test_the_profile_a_command_line_selects(tmp_path, monkeypatch):
    """A profile of the command line (any ``--profile``, or $SNAKEMAKE_PROFILE, or ``--workflow-profile``)
    whose key file selects another config profile than the run's is a conflict; a profile without a
    key file (profiles/default) is not."""
    assert requested_profiles(["snakemake", "--profile", "a", "--profile=b"], {}) == [
        ("--profile", "a"),
        ("--profile", "b"),
    ]
    assert requested_profiles(["snakemake"], {"SNAKEMAKE_PROFILE": "c"}) == [("--profile", "c")]
    assert requested_profiles(["snakemake", "-n"], {}) == []
    # Any spelling argparse accepts, and the workflow profile (both used to run the default silently):
    both = [("--profile", "d"), ("--workflow-profile", "e")]
    assert requested_profiles(["snakemake", "--prof", "d", "--workflow-profile", "e"], {}) == both
    # The workflow parsed from Python under a command line Snakemake's parser refuses (pytest -q):
    assert requested_profiles(["pytest", "-q", "tests/test_registries.py"], {}) == []
    (tmp_path / "profiles/quick").mkdir(parents=True)
    (tmp_path / "profiles/quick/profile-key.yaml").write_text("profile: quick\n")
    monkeypatch.chdir(tmp_path)
    argv = ["snakemake", "--profile", "profiles/quick"]
    assert profile_selection_problem(argv, {}, "quick") == ""
    assert "selects config profile 'quick'" in profile_selection_problem(argv, {}, "default")
    assert profile_selection_problem(["snakemake", "--profile", "profiles/default"], {}, "default") == ""
    for spelling in (["--prof", "profiles/quick"], ["--workflow-profile", "profiles/quick"]):
        assert "selects config profile 'quick'" in profile_selection_problem(["snakemake", *spelling], {}, "default")


def test_library_versions_name_the_absent_ones():
    import numpy

    assert library_versions("numpy", "no-such-distribution-xyz") == {
        "numpy": numpy.__version__,
        "no-such-distribution-xyz": "missing",
    }


# =========================================================================== optional libraries


def without_libraries(directory: Path, names=OPTIONAL_LIBRARIES) -> dict:
    """An environment in which importing any of ``names`` raises ModuleNotFoundError, as when the
    library is not installed (stub packages first on PYTHONPATH)."""
    for name in names:
        (directory / name).mkdir(parents=True, exist_ok=True)
        (directory / name / "__init__.py").write_text(
            f'raise ModuleNotFoundError("No module named {name!r} (hidden by a fault test)", name={name!r})\n'
        )
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(directory), os.environ.get("PYTHONPATH", "")])}


def run_pytest(arguments, environment, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *map(str, arguments)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )


def uses(names, text: str) -> bool:
    """Whether a test module imports one of ``names``, skips without it, or trains with DP-SGD
    (the ``dp_sgd`` fixture needs torch and Opacus)."""
    alternatives = "|".join(names)
    pattern = rf"(?:import|from)\s+(?:{alternatives})\b|importorskip\(\s*\"(?:{alternatives})"
    return re.search(pattern, text) is not None or (
        bool({"torch", "opacus"} & set(names)) and re.search(r"\bdp_sgd\b", text) is not None
    )


def test_every_test_module_is_collected_without_the_optional_libraries(tmp_path):
    environment = without_libraries(tmp_path / "hidden")
    collected = run_pytest(["--collect-only", REPO / "tests"], environment, REPO)
    assert collected.returncode == 0, collected.stdout[-3000:]


def test_an_unguarded_import_of_an_absent_library_fails(tmp_path):
    """Negative control of the hiding: a test importing a hidden library without a skip fails."""
    unguarded = tmp_path / "test_unguarded.py"
    unguarded.write_text("import opendp\n\n\ndef test_uses_it():\n    assert opendp\n")
    result = run_pytest([unguarded], without_libraries(tmp_path / "hidden", ["opendp"]), tmp_path)
    assert result.returncode != 0 and "hidden by a fault test" in result.stdout


@pytest.mark.workflow
@pytest.mark.parametrize(
    "hidden", [OPTIONAL_LIBRARIES, *[(name,) for name in OPTIONAL_LIBRARIES]], ids=["all", *OPTIONAL_LIBRARIES]
)
def test_every_oracle_test_skips_with_a_reason_when_its_library_is_absent(hidden, tmp_path):
    """With the ``hidden`` libraries absent (all five, or each alone: Opacus without torch was a
    gap), the test modules that use one pass or skip with a reason naming it. The end-to-end
    (``workflow``) tests among them run with all five absent only: each library alone is checked at
    the unit level, which is where a missing skip hides (this saves 33 of 170 s)."""
    files = sorted(
        path
        for path in (REPO / "tests").rglob("test_*.py")
        if path.name != Path(__file__).name and uses(hidden, path.read_text())
    )
    selection = []
    if hidden == OPTIONAL_LIBRARIES:
        files.append(REPO / "tests/test_library.py")  # every public name, the optional ones imported lazily
    else:
        selection = ["-m", "not workflow"]
    result = run_pytest([*selection, *files], without_libraries(tmp_path / "hidden", hidden), REPO)
    assert result.returncode == 0, result.stdout[-4000:]
    skipped = [line.lower() for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    for name in hidden:
        assert any(name in line for line in skipped), f"no test skipped naming {name}"


# =========================================================================== the workflow, in a copy of the checkout


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the checkout's source files (no outputs), with its own data/raw and .snakemake."""
    return copy_checkout(tmp_path_factory.mktemp("checkout"))


def run_workflow(
    checkout: Path, *arguments: str, own_package: bool = True, extra_path: str = ""
) -> subprocess.CompletedProcess:
    """Snakemake in ``checkout``, importing the copy's own package (or, with ``own_package``
    False, whatever the environment installs: the working tree's)."""
    paths = [extra_path, str(checkout / "src") if own_package else "", os.environ.get("PYTHONPATH", "")]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    return subprocess.run(
        [SNAKEMAKE, *arguments, *SMALL_RUN], cwd=checkout, env=environment, capture_output=True, text=True, timeout=600
    )


def output(result: subprocess.CompletedProcess) -> str:
    return result.stdout + result.stderr


def test_a_stale_environment_is_named_at_start(checkout):
    """Installed versions unlike the lock used to pass without a word."""
    lock = checkout / "requirements.lock"
    pinned = lock.read_text()
    try:
        lock.write_text(re.sub(r"^numpy==.*$", "numpy==1.0.0", pinned, flags=re.MULTILINE))
        result = run_workflow(checkout, "-n", "pf_tv_convergence")
    finally:
        lock.write_text(pinned)
    installed = __import__("numpy").__version__
    assert result.returncode == 0
    assert "the installed packages differ from requirements.lock" in output(result)
    assert f"numpy: installed {installed}, lock pins 1.0.0" in output(result)
    assert "differ from requirements.lock" not in output(run_workflow(checkout, "-n", "pf_tv_convergence"))


def test_the_workflow_refuses_another_checkouts_package(checkout):
    """The environment's dpreplication is the working tree's, not the copy's: the run stops before
    any job naming both paths and the fix; importing the copy's own src/ (control) plans the job."""
    refused = run_workflow(checkout, "-n", "pf_tv_convergence", own_package=False)
    imported = Path(__import__("dpreplication").__file__).resolve().parent
    assert refused.returncode != 0
    assert (
        f"the workflow imports dpreplication from {imported}, not this checkout's "
        f"{(checkout / 'src/dpreplication').resolve()}: install the checkout with `pip install -e .`"
    ) in output(refused)
    assert run_workflow(checkout, "-n", "pf_tv_convergence").returncode == 0


@pytest.mark.parametrize(
    "arguments",
    [
        ("--profile", "profiles/quick", "--configfile", "{mine}"),
        ("--profile", "profiles/quick", "--config", "profile=default"),
        ("--prof", "profiles/quick", "--configfile", "{mine}"),
        ("--workflow-profile", "profiles/quick", "--configfile", "{mine}"),
    ],
    ids=["configfile replaces the profile's", "config overrides the profile's", "abbreviated", "workflow profile"],
)
def test_a_profile_that_would_not_apply_stops_the_run(arguments, checkout, tmp_path):
    """`--profile profiles/quick --configfile mine.yaml` used to run the default profile silently."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("seed: 3\n")
    result = run_workflow(checkout, "-n", "pf_tv_convergence", *(a.format(mine=mine) for a in arguments))
    assert result.returncode != 0
    option = "--workflow-profile" if "--workflow-profile" in arguments else "--profile"
    assert (
        f"{option} profiles/quick selects config profile 'quick' (profiles/quick/profile-key.yaml), but this "
        "run's configuration has profile 'default'"
    ) in output(result)
    kept = run_workflow(
        checkout, "-n", "--verbose", "pf_tv_convergence", "--profile", "profiles/quick",
        "--configfile", "profiles/quick/profile-key.yaml", str(mine),
    )  # fmt: skip
    assert kept.returncode == 0 and "results/quick-" in output(kept)


@pytest.mark.parametrize(
    "override, message",
    [
        ("truncated_laplace={monte_carlo: {points: [[1, 0.7]]}}", "0.7 is greater than or equal to the maximum of 0.5"),
        ("darrm={teacher_ablation: {m: 12}}", "config key 'darrm.teacher_ablation.m': 12 not in [1, K]"),
        (
            "permute_and_flip={tv_convergence: {epsilonn: 2}}",
            "'permute_and_flip.tv_convergence.epsilonn': unknown key; did you mean 'epsilon'?",
        ),
        ("permute_and_flip={tv_convergence: {epsilon: -2}}", "-2 is less than or equal to the minimum of 0"),  # typed
        ("darrm={f2_gamma_shapes: {K: 10}}", "config key 'darrm.f2_gamma_shapes.K': 10 should not be valid under"),
        # A repeated grid value (it used to validate, then crash its job in pandas):
        (
            "privgene={choice_of_c: {c_grid: [0.0005, 0.0005, 0.00125]}}",
            "config key 'privgene.choice_of_c.c_grid': [0.0005, 0.0005, 0.00125] has non-unique elements",
        ),
        # Values JSON Schema lets through (NaN fails every minimum comparison, 1e3 counts as an integer):
        (
            "permute_and_flip={tv_convergence: {epsilon: nan}}",
            "'permute_and_flip.tv_convergence.epsilon': nan is not a",
        ),
        ("truncated_laplace={monte_carlo: {points: [[1, nan]]}}", "points[0][1]': nan is not a finite number"),
        ("truncated_laplace={monte_carlo: {points: [[inf, 1.0e-6]]}}", "inf is greater than the maximum of 1000"),
        ("darrm={f2_gamma_shapes: {Delta: nan}}", "config key 'darrm.f2_gamma_shapes.Delta': nan is not a finite"),
        # Raw data written into the published tree (it used to plan data/ under figures/):
        ("data={directory: figures/raw}", "config key 'data.directory': 'figures/raw' lies in figures/, the published"),
        ("seed=1e3", "config key 'seed': 1000.0 must be an integer; write 1000"),
        # Sizes beyond their documented bound (the γ LP at K = 1,001 would not finish):
        ("darrm={f2_gamma_shapes: {K: 1001}}", "1001 is greater than the maximum of 201"),
        ("permute_and_flip={pmf_bars: {n: 1000000000}}", "1000000000 is greater than the maximum of 100000000"),
        (
            "permute_and_flip={exact_tables: {cases: [{vector: Q5, epsilon: 1e308}]}}",
            "1e+308 is greater than the maximum of 1000",
        ),
    ],
)
def test_bad_values_stop_the_run_before_any_job(override, message, checkout):
    result = run_workflow(checkout, "-n", "pf_tv_convergence", "--config", override)
    assert result.returncode != 0 and message in output(result), output(result)[-3000:]
    assert "Job stats" not in output(result)


@pytest.mark.workflow
def test_a_corrupted_raw_file_stops_its_job_and_a_deleted_one_is_fetched_again(checkout):
    """HEPTH is fetched from the mirror and read by one P&F job. Corrupted afterwards, it stops the
    rerun naming the file and the expected SHA256, in the output and in the job's log; deleted, it
    is fetched again and the job's table is recomputed bit for bit. About 30 s."""
    if MIRROR is None:
        pytest.skip("no data mirror")
    target = "results/quick/work/permute_and_flip/utility/HEPTH.csv"
    run = ("--cores", "1", target, "--config", "profile=quick")  # --config takes every argument after it
    assert run_workflow(checkout, *run).returncode == 0
    table = (checkout / target).read_bytes()
    raw = checkout / "data/raw/dpbench_1d/HEPTH.n4096.npy"
    flip_one_digit(raw)
    failed = run_workflow(checkout, *run)
    message = "data file data/raw/dpbench_1d/HEPTH.n4096.npy is corrupt: content SHA256 "
    expected = DATASETS["dpbench_1d"].file(raw.name).sha256
    assert failed.returncode != 0 and message in output(failed) and expected in output(failed)
    log = (checkout / "logs/quick/permute_and_flip/utility/HEPTH.log").read_text()
    assert "the job failed" in log and message in log and expected in log
    assert not (checkout / target).exists()
    raw.unlink()
    repaired = run_workflow(checkout, *run)
    assert repaired.returncode == 0, output(repaired)[-3000:]
    assert "fetch_data_file" in output(repaired) and (checkout / target).read_bytes() == table


def test_a_table_made_without_a_library_is_remade_when_the_library_arrives(checkout, tmp_path):
    """The cross-check table records the optional libraries' versions as a param: a library that
    appears (here a distribution record of a new OpenDP version, first on the path) reruns it, so
    a table whose rows say "missing" never outlives the library's installation. Without the param
    (negative control) the stale table stays. About 10 s."""
    target = "tl_library_cross_check"
    assert run_workflow(checkout, "--cores", "1", target, "--config", "profile=quick").returncode == 0
    assert "Nothing to be done" in output(run_workflow(checkout, "-n", target, "--config", "profile=quick"))
    record = tmp_path / "site" / "opendp-999.0.dist-info"
    record.mkdir(parents=True)
    (record / "METADATA").write_text("Metadata-Version: 2.1\nName: opendp\nVersion: 999.0\n")
    planned = run_workflow(checkout, "-n", target, "--config", "profile=quick", extra_path=str(tmp_path / "site"))
    assert planned.returncode == 0 and "tl_library_cross_check" in output(planned)
    assert "Nothing to be done" not in output(planned)
    rules = checkout / "workflow/rules/truncated_laplace.smk"
    original = rules.read_text()
    try:
        without_param = original.replace("\n        libraries=TL_ORACLES,", "")
        assert without_param.count("TL_ORACLES") == 1, "the negative control must remove the param"
        rules.write_text(without_param)
        assert run_workflow(checkout, "--cores", "1", target, "--config", "profile=quick").returncode == 0
        stale = run_workflow(checkout, "-n", target, "--config", "profile=quick", extra_path=str(tmp_path / "site"))
        assert "Nothing to be done" in output(stale)
    finally:
        rules.write_text(original)
