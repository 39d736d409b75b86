# The two set-up commands of the README (each creates the pinned venv first):
#   make replicate   every figure and table, default profile -> figures/
#   make test        the test suite, including the quick-profile drift check
SHELL := /bin/bash
VENV ?= .venv
PYTHON := $(VENV)/bin/python
SNAKEMAKE := $(VENV)/bin/snakemake
# Single-threaded BLAS: bit-stable sums; Snakemake parallelises across jobs instead.
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

.PHONY: bench-repetition lint other-cpu paper-slice replicate readme figure-map quick check-figures test test-fast mutants references instruction-sets report bench cluster-resources lock clean-results

replicate: $(VENV)/installed
	$(SNAKEMAKE)
	$(PYTHON) -m dpreplication.scorecard README.md figures/scorecard.csv

# Rewrite the README's status table from the published scorecard.
readme: $(VENV)/installed
	$(PYTHON) -m dpreplication.scorecard README.md figures/scorecard.csv

# Rewrite docs/figures.md: every published output -> its rule, upstream rules and mechanisms.
figure-map: $(VENV)/installed
	$(PYTHON) -m dpreplication.pipeline.figure_map docs/figures.md

quick: $(VENV)/installed
	$(SNAKEMAKE) --config profile=quick

# The fast figure check: the quick profile (what changed), then each changed figure against the
# references, data and picture (results/quick/figure-diff/index.html).
check-figures: quick
	$(PYTHON) -m dpreplication.pipeline.figure_diff results/quick/figures tests/references/quick results/quick/figure-diff

# One pytest worker per core (pytest-xdist), each test module on one worker, in the order of
# tests/conftest.py (the slowest modules first): the quick-profile run's tests share its one run.
PYTEST_WORKERS := --numprocesses auto --dist loadfile --no-loadscope-reorder

test: $(VENV)/installed
	$(PYTHON) -m pytest $(PYTEST_WORKERS)

# Ruff's linter and formatter on the package, workflow scripts, tests and benchmarks; snakefmt and
# Snakemake's linter (rule files hold rules, helpers live in common.smk, every rule has its log and
# conda directives) on the workflow. The first step of .ci/run: a style slip fails in seconds.
lint: $(VENV)/installed
	$(VENV)/bin/ruff check src tests workflow benchmarks
	$(VENV)/bin/ruff format --check src tests workflow benchmarks
	$(VENV)/bin/snakefmt --check --diff Snakefile workflow/rules
	$(SNAKEMAKE) --lint --config profile=quick > $(VENV)/snakemake-lint.txt 2>&1 || { cat $(VENV)/snakemake-lint.txt; exit 1; }
	! grep -q "Lints for" $(VENV)/snakemake-lint.txt || { cat $(VENV)/snakemake-lint.txt; exit 1; }

test-fast: $(VENV)/installed
	$(PYTHON) -m pytest $(PYTEST_WORKERS) -m "not workflow"

# Apply each curated privacy mutant (tests/mutants/mutants.yaml) to a scratch copy and run its tests:
# every mutant must be killed. Report in results/mutants/.
mutants: $(VENV)/installed
	$(PYTHON) tests/mutants/run.py

# Accept the current quick-profile outputs as the new drift references (review the diff!).
references: quick
	$(PYTHON) -m dpreplication.pipeline.drift update results/quick/figures tests/references/quick

# Measure how far the quick profile moves under other instruction sets than the pinned x86-64-v3
# (tests/references/quick/instruction_sets.csv): the trained tables' drift tolerances are read from it.
# Rerun after `make references` when the teachers changed. x86-64-v4 needs a CPU with AVX-512.
OTHER_INSTRUCTION_SETS ?= x86-64-v2 x86-64-v4 native
instruction-sets: $(VENV)/installed
	for isa in $(OTHER_INSTRUCTION_SETS); do \
	  $(SNAKEMAKE) --forceall --config profile=quick instruction_set=$$isa variant=isa-$$isa || exit 1; done
	$(PYTHON) -m dpreplication.pipeline.drift measure tests/references/quick \
	  $(foreach isa,$(OTHER_INSTRUCTION_SETS),$(isa)=results/isa-$(isa)/figures)
	$(PYTHON) -m dpreplication.pipeline.drift page tests/references/quick docs/reproducibility.md

# On a CPU other than the references' (another vendor or model): how far the quick profile moves here
# under the pin. Its rows join the instruction sets' in instruction_sets.csv, labelled by this CPU, and
# widen the trained tables' drift tolerances as those do (the exact tables must not move).
THIS_CPU := $(shell sed -n 's/^vendor_id\s*: //p; s/^cpu family\s*: /family /p; s/^model\s*: /model /p' /proc/cpuinfo 2>/dev/null | head -3 | paste -sd ' ')
other-cpu: quick
	$(PYTHON) -m dpreplication.pipeline.drift measure tests/references/quick "x86-64-v3 on $(THIS_CPU)=results/quick/figures"
	$(PYTHON) -m dpreplication.pipeline.drift page tests/references/quick docs/reproducibility.md

# The HTML report of the published outputs as they are: only the report's own rule may run, and as it only
# reads, it takes no lock (it runs beside a running workflow).
report: $(VENV)/installed
	$(SNAKEMAKE) report.html --allowed-rules report_html --nolock

bench: $(VENV)/installed
	mkdir -p benchmarks/records
	$(PYTHON) -m pytest benchmarks --benchmark-only --benchmark-json=benchmarks/records/benchmarks.json

# One PrivGene comparison repetition (Fig. 3 Adult LR, then Fig. 4 Adult SVM) by this checkout against an
# older commit, side by side: CPU per method and how far the released models moved. After make replicate.
AGAINST ?= 893f369
bench-repetition: $(VENV)/installed
	$(PYTHON) benchmarks/repetition_against.py --against $(AGAINST) --dataset Adult --task lr
	$(PYTHON) benchmarks/repetition_against.py --against $(AGAINST) --dataset Adult --task svm

# Per-rule SLURM runtime and memory (profiles/slurm) from the benchmark records of `make replicate`,
# scaled to the paper profile's job sizes, and every rule's cost (docs/costs.md).
cluster-resources: $(VENV)/installed
	$(PYTHON) -m dpreplication.pipeline.cluster_resources benchmarks/records/default profiles/slurm/config.yaml --costs docs/costs.md

# torch's CPU build (torch==<pin>+cpu, which PyPI does not have; its Linux torch is the CUDA build, with
# 3 GB of nvidia-* wheels) comes from this page of PyTorch's CPU index. A machine that cannot reach it
# names a folder holding the wheel instead: make TORCH_WHEELS=/opt/wheels ...
TORCH_WHEELS ?= https://download.pytorch.org/whl/cpu/torch/

# A slice of the paper profile through a real single-node SLURM (root, slurm-wlm and munge), its CPU
# against the projection of docs/costs.md: docs/paper_slice.md, results/paper/report.html. After make replicate.
paper-slice: $(VENV)/installed
	$(PYTHON) benchmarks/paper_slice.py

# Re-pin after changing dependencies: pin what .venv holds into the hashed lock (pip freeze, then
# uv pip compile --generate-hashes), then mirror it into environment.yml.
lock: $(VENV)/installed
	$(PYTHON) -m dpreplication.pipeline.environment lock --torch-wheels $(TORCH_WHEELS)
	$(PYTHON) -m dpreplication.pipeline.environment mirror

# Every download is checked against the lock's hashes (--require-hashes). torch first, alone, from
# TORCH_WHEELS: pip would ask an extra page for every package of the lock (and where the page is
# unreachable it falls back to pip's own find-links). Then the lock's uv, which installs the other
# ~150 pins in parallel: 5 s against pip's 65 s on 2 cores (measured on a warm cache). With their
# bytecode, and the package's (its editable install is a .pth file, so compileall): uv writes none
# unless asked, and where PYTHONDONTWRITEBYTECODE is set nothing does later (docs/setup.md).
$(VENV)/installed: requirements.lock pyproject.toml
	python3 -m venv $(VENV)
	awk '/^torch==/ { found = 1 } found && /^ *#/ { exit } found' requirements.lock > $(VENV)/torch.txt
	awk '/^uv==/ { found = 1 } found && /^ *#/ { exit } found' requirements.lock > $(VENV)/uv.txt
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps --find-links $(TORCH_WHEELS) -r $(VENV)/torch.txt
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r $(VENV)/uv.txt
	$(VENV)/bin/uv pip install --python $(PYTHON) --quiet --compile-bytecode --require-hashes -r requirements.lock
	$(VENV)/bin/uv pip install --python $(PYTHON) --quiet --no-deps -e .
	$(PYTHON) -m compileall -q src
	touch $@

clean-results:
	rm -rf results logs benchmarks/records .snakemake
