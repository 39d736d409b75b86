"""The same verdicts on another machine.

CI runs where the references were made, so it cannot see a machine dependence by itself. Here the
quick profile's trained tables (the DaRRM teachers) are computed a second time under another
instruction set, x86-64-v4 where the CPU has AVX-512 and x86-64-v2 (SSE4.2) elsewhere: PyTorch's
ATen and oneDNN, NumPy and OpenBLAS all take other kernels. They must pass the drift check of their
class, with every DaRRM claim keeping the status it has in the references. The rest of the package
is exact under the pinned instruction set; what the pins are, and that a user's shell cannot change
them, is checked too.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dpreplication.pipeline import drift
from dpreplication.pipeline.instruction_sets import (
    INSTRUCTION_SETS,
    JOB_ENVIRONMENT,
    THREADS,
    apply_job_environment,
    cpu_flags,
    instruction_set_problem,
    job_environment,
)
from dpreplication.scorecard import evaluate_claims, load_registry, read_scorecard

REPO = Path(__file__).resolve().parents[1]
REFERENCES = REPO / "tests" / "references" / "quick"
# AVX-512 where the CPU has it (about half the CPU time of x86-64-v2 on the teachers), else SSE4.2.
OTHER_INSTRUCTION_SET = "x86-64-v4" if "avx512f" in (cpu_flags() or set()) else "x86-64-v2"
VARIANT = f"ci-{OTHER_INSTRUCTION_SET}"
TOLERANCES = drift.load_tolerances(REFERENCES)
TRAINED = sorted(name for name in drift.trained_tables(TOLERANCES) if Path(name).name != "scorecard")


def test_the_default_pins_every_library_and_mkl_on_its_vendor_independent_branch():
    assert JOB_ENVIRONMENT == job_environment("x86-64-v3")
    assert JOB_ENVIRONMENT["MKL_CBWR"] == "COMPATIBLE"  # AVX2 falls back to MKL's own dispatch on AMD CPUs
    assert all(value is not None for value in JOB_ENVIRONMENT.values())
    assert {frozenset(pins) for pins in INSTRUCTION_SETS.values()} == {frozenset(INSTRUCTION_SETS["native"])}
    assert all(value is None for value in INSTRUCTION_SETS["native"].values())


def test_the_job_environment_is_set_not_defaulted_and_the_user_values_are_reported():
    environ = {"NPY_DISABLE_CPU_FEATURES": "AVX2", "ATEN_CPU_CAPABILITY": "avx2", "PATH": "/bin"}
    replaced = apply_job_environment(environ)
    assert replaced == {"NPY_DISABLE_CPU_FEATURES": "AVX2"}
    assert environ == {**JOB_ENVIRONMENT, "PATH": "/bin"}
    replaced = apply_job_environment(environ, "native")
    assert environ == {**THREADS, "PATH": "/bin"}
    assert replaced == {variable: value for variable, value in JOB_ENVIRONMENT.items() if "THREADS" not in variable}


def test_an_instruction_set_the_cpu_lacks_is_refused_naming_the_ones_it_has():
    assert instruction_set_problem("x86-64-v4", {"sse4_2", "avx2", "fma"}).startswith(
        "config key 'instruction_set': x86-64-v4 needs CPU flags ['avx512f']"
    )
    assert "['x86-64-v3', 'x86-64-v2', 'native']" in instruction_set_problem("x86-64-v4", {"sse4_2", "avx2", "fma"})
    assert instruction_set_problem("x86-64-v3", {"sse4_2", "avx2", "fma"}) == ""
    assert instruction_set_problem("x86-64-v4", None) == ""  # flags unknown (not Linux): nothing refused


def test_cpu_flags_reads_proc_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse4_2 avx2\n\nprocessor\t: 1\nflags\t\t: fpu sse4_2 avx2\n")
    assert cpu_flags(cpuinfo) == {"fpu", "sse4_2", "avx2"}
    assert cpu_flags(tmp_path / "absent") is None


def test_the_trained_tolerances_come_from_a_measurement_of_every_trained_table():
    """The spread file measured each trained table under at least two other instruction sets, and a
    trained tolerance exists only where a measurement moved."""
    spread = drift.read_spread(REFERENCES)
    assert len(set(spread.instruction_set)) >= 2
    allowed = drift.allowed_deviations(spread, float(TOLERANCES["trained"]["safety_factor"]))
    assert allowed, "no trained table moved: the trained class would be exact"
    for (table, column, key), tolerance in allowed.items():
        moved = spread[(spread.table == table) & (spread.column == column) & (spread.key == key)]
        largest = moved.max_abs_diff.max()
        assert 2 * largest <= tolerance * (1 + 1e-9) and tolerance <= 2.2 * largest * (1 + 1e-9), (table, column, key)


def test_a_scorecard_value_may_move_as_far_as_the_trained_column_its_claim_reads(tmp_path):
    sources = drift.restated_sources(TOLERANCES)
    assert sources["darrm/gnmax_draws_match_expectation_mnist_m3"] == ("darrm/prediction_accuracy", "gnmax_z", "")
    assert sources["darrm/recovered_m7_gnmax_mnist"] == (
        "darrm/prediction_teacher_seeds",
        "gnmax_expected",
        "mnist/7/all",
    )
    assert "darrm/majority_effective_budget_eps1" not in sources  # verified_numbers: exact
    assert {table for table, _, _ in sources.values()} <= set(TRAINED)
    allowed = drift.allowed_deviations(drift.read_spread(REFERENCES), 2)[("darrm/prediction_accuracy", "gnmax_z", "")]
    scorecard = pd.read_csv(REFERENCES / "scorecard.csv")
    trained_row = scorecard.index[scorecard.id == "gnmax_draws_match_expectation_mnist_m3"][0]
    exact_row = scorecard.index[scorecard.id == "majority_effective_budget_eps1"][0]
    for row, shift, problems in ((trained_row, 0.99, 0), (trained_row, 1.01, 1), (exact_row, 1e-6, 1)):
        (tmp_path / "produced").mkdir(exist_ok=True)
        moved = scorecard.copy()
        moved.loc[row, "reproduced"] += shift * (allowed if row == trained_row else 1)
        moved.to_csv(tmp_path / "produced" / "scorecard.csv", index=False)
        assert len(drift.check(tmp_path / "produced", REFERENCES, only=["scorecard"])) == problems, (row, shift)


def test_the_reproducibility_page_is_current():
    page = REPO / "docs" / "reproducibility.md"
    assert page.read_text() == drift.spread_page(REFERENCES), "stale: make instruction-sets (or drift page)"


@pytest.fixture(scope="module")
def other_machine():
    """The trained tables of the quick profile, computed under :data:`OTHER_INSTRUCTION_SET`."""
    figures = REPO / "results" / VARIANT / "figures"
    shutil.rmtree(REPO / "results" / VARIANT, ignore_errors=True)
    env = {key: value for key, value in os.environ.items() if key not in JOB_ENVIRONMENT}
    result = subprocess.run(
        [
            *(sys.executable, "-m", "snakemake", "--directory", str(REPO), "--snakefile", str(REPO / "Snakefile")),
            *(f"results/{VARIANT}/figures/{name}.csv" for name in TRAINED),
            *("--cores", str(os.cpu_count() or 1), "--nolock", "--quiet", "rules"),
            *("--config", "profile=quick", f"instruction_set={OTHER_INSTRUCTION_SET}", f"variant={VARIANT}"),
            # Its own copy of the data: the quick run beside it refetches data/raw (--forceall).
            f"data={{directory: results/{VARIANT}/data}}",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    return figures


@pytest.mark.workflow
def test_trained_tables_pass_the_drift_check_under_another_instruction_set(other_machine):
    problems = drift.check(other_machine, REFERENCES, only=TRAINED)
    assert problems == [], "\n".join(problems)


@pytest.mark.workflow
def test_the_other_instruction_set_really_ran_other_kernels(other_machine):
    import json

    sidecar = json.loads((other_machine / f"{TRAINED[0]}.json").read_text())
    assert sidecar["job_environment"] == job_environment(OTHER_INSTRUCTION_SET)


@pytest.mark.workflow
def test_every_darrm_claim_keeps_its_status_under_another_instruction_set(other_machine):
    tables = {path.stem: pd.read_csv(path) for path in (REFERENCES / "darrm").glob("*.csv") if path.stem != "scorecard"}
    for name in TRAINED:
        tables[Path(name).name] = pd.read_csv(other_machine / f"{name}.csv")
    scorecard = evaluate_claims(load_registry(REPO / "workflow" / "claims" / "darrm.yaml"), tables)
    reference = read_scorecard(REFERENCES / "darrm" / "scorecard.csv").set_index("id").status
    now = scorecard.set_index("id").status
    changed = {claim: (reference[claim], now[claim]) for claim in reference.index if now.get(claim) != reference[claim]}
    assert changed == {}, f"statuses that depend on the machine: {changed}"
