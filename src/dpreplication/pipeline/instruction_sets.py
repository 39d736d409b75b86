"""The environment every job runs in: one thread, and the instruction set its numerical kernels use.

Config key ``instruction_set`` names a pin of :data:`INSTRUCTION_SETS`; the workflow sets
:func:`job_environment` for its jobs (:func:`apply_job_environment`) and refuses a pin whose
instructions this CPU lacks (:func:`instruction_set_problem`).
"""

from __future__ import annotations

import re
from pathlib import Path

THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""One thread per job: floating-point sums in one order; Snakemake runs jobs in parallel instead."""
INSTRUCTION_SETS = {
    # The default: AVX2 and FMA in NumPy, PyTorch's ATen and oneDNN, OpenBLAS; MKL on its SSE2 branch.
    # MKL honours an ISA branch such as AVX2 on Intel CPUs only: on AMD it falls back to its own
    # dispatch ("CNR:AUTO" in MKL_VERBOSE), so torch's SGEMMs rounded differently on an Intel Xeon
    # than here. COMPATIBLE is MKL's one branch that is the same on every x86-64 vendor.
    "x86-64-v3": {
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        "ATEN_CPU_CAPABILITY": "avx2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "MKL_CBWR": "COMPATIBLE",
        "OPENBLAS_CORETYPE": "Haswell",
    },
    # SSE4.2 and older everywhere: runs on any x86-64 machine NumPy supports; CI's second machine.
    "x86-64-v2": {
        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
        "ATEN_CPU_CAPABILITY": "default",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "MKL_CBWR": "COMPATIBLE",
        "OPENBLAS_CORETYPE": "Nehalem",
    },
    # AVX-512 everywhere (needs a CPU with AVX-512F; MKL's AVX512 branch only on Intel).
    "x86-64-v4": {
        "NPY_DISABLE_CPU_FEATURES": None,
        "ATEN_CPU_CAPABILITY": "avx512",
        "ONEDNN_MAX_CPU_ISA": "AVX512_CORE",
        "MKL_CBWR": "AVX512",
        "OPENBLAS_CORETYPE": "SkylakeX",
    },
    # Whatever each library picks on this CPU: the unpinned path.
    "native": {
        "NPY_DISABLE_CPU_FEATURES": None,
        "ATEN_CPU_CAPABILITY": None,
        "ONEDNN_MAX_CPU_ISA": None,
        "MKL_CBWR": None,
        "OPENBLAS_CORETYPE": None,
    },
}
"""Named instruction-set pins (config key ``instruction_set``): each variable's value, ``None`` = unset."""
DEFAULT_INSTRUCTION_SET = "x86-64-v3"
REQUIRED_CPU_FLAGS = {"x86-64-v3": ("avx2", "fma"), "x86-64-v2": ("sse4_2",), "x86-64-v4": ("avx512f",), "native": ()}
"""The CPU flags (``/proc/cpuinfo``) an instruction set needs: without them a pinned kernel would not run."""


def job_environment(instruction_set: str = DEFAULT_INSTRUCTION_SET) -> dict[str, str | None]:
    """Every variable the workflow sets for its jobs: threads and the pins of ``instruction_set``.

    ``None`` means the variable is removed, so that the library chooses for itself.
    """
    if instruction_set not in INSTRUCTION_SETS:
        raise ValueError(f"unknown instruction set {instruction_set!r}; choose one of {sorted(INSTRUCTION_SETS)}")
    return {**THREADS, **INSTRUCTION_SETS[instruction_set]}


JOB_ENVIRONMENT = job_environment()
"""The default job environment: every job of a committed profile runs with exactly these values."""


def apply_job_environment(environ, instruction_set: str = DEFAULT_INSTRUCTION_SET) -> dict[str, str]:
    """Set (not default) :func:`job_environment` in ``environ``; return the user's values it replaced."""
    replaced = {}
    for variable, value in job_environment(instruction_set).items():
        if environ.get(variable) not in (None, value):
            replaced[variable] = environ[variable]
        if value is None:
            environ.pop(variable, None)
        else:
            environ[variable] = value
    return replaced


def instruction_set_problem(instruction_set: str, cpu_flags: set[str] | None) -> str:
    """``""`` unless this CPU lacks a flag that ``instruction_set`` needs (unknown flags: no problem)."""
    missing = [flag for flag in REQUIRED_CPU_FLAGS[instruction_set] if cpu_flags is not None and flag not in cpu_flags]
    if not missing:
        return ""
    return (
        f"config key 'instruction_set': {instruction_set} needs CPU flags {missing} that this machine lacks; "
        f"choose one of {[name for name, flags in REQUIRED_CPU_FLAGS.items() if set(flags) <= cpu_flags]}"
    )


def cpu_flags(cpuinfo: str | Path = "/proc/cpuinfo") -> set[str] | None:
    """Return the CPU's feature flags from ``/proc/cpuinfo`` (``None`` where it cannot be read: not Linux)."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return None
    flags = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return set(flags.group(1).split()) if flags else None
