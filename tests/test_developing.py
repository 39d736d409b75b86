"""docs/developing.md, followed: a figure added the way "Adding a figure" says is computed, drawn,
registered and judged.

:func:`test_a_figure_added_as_documented_is_published_drawn_registered_and_judged` copies the
checkout's source files (no outputs) and, in the copy, takes steps 1–6 of the page for a toy
permute-and-flip figure ``toy_pmf`` (the exact P&F pmf of a score vector beside the frequencies of a
few RNM-Exp draws): the rule and the script are the page's own examples with the names changed, so
the page cannot show a rule or a script that the workflow does not run. Snakemake then makes the
toy's CSV and PNG under the quick profile, the copy's own package imported; the test checks what
the page promises (sidecar, light drawing rule, registration with rule ``all`` and the scorecard,
the claim, the repository's own checks of a new computation, lint). Step 7 (``make check-figures``,
``make references``, ``make figure-map``) needs the whole quick profile and is not taken.

The fast tests keep the page's examples whole: its rule names every directive the workflow's figure
rules use, and its script is the one it quotes.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from checkout_copy import copy_checkout

from dpreplication.pipeline.config import profile_config
from dpreplication.scorecard import claims_on, evaluate_claims, load_registry

REPO = Path(__file__).resolve().parents[1]
DEVELOPING = REPO / "docs" / "developing.md"
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
SNAKEFMT = str(Path(sys.executable).parent / "snakefmt")
PF = "permute_and_flip"
TOY = "toy_pmf"
FIGURES = f"results/quick/figures/{PF}"
TOY_CSV, TOY_JSON, TOY_PNG, TOY_PDF = (f"{FIGURES}/{TOY}.{kind}" for kind in ("csv", "json", "png", "pdf"))
DIRECTIVES = ("input", "output", "log", "benchmark", "conda", "params", "message", "script")
"""The directives of every computing rule of a figure (checked against the rule files below)."""
TOP_ITEM_PROBABILITY = 0.45197
"""P&F's probability of Q5's top item at ε = 1 (spec §3.4, quoted in workflow/report/pf_pmf_bars.rst)."""


# =========================================================================== the page's examples


def adding_a_figure() -> str:
    """The section "Adding a figure" of docs/developing.md."""
    text = DEVELOPING.read_text()
    return text[text.index("## Adding a figure") : text.index("## Debugging a script")]


def code_block(containing: str) -> str:
    """The fenced code block of "Adding a figure" that contains ``containing``, dedented."""
    blocks = [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)^ *```", adding_a_figure(), re.S | re.M)]
    found = [block for block in blocks if containing in block]
    assert len(found) == 1, f"docs/developing.md, Adding a figure: {len(found)} code blocks contain {containing!r}"
    return found[0]


def documented_rule() -> str:
    return code_block("rule pf_pmf_bars:")


def documented_script() -> str:
    return code_block("start(snakemake)")


def rule_blocks(text: str) -> dict[str, str]:
    """Rule name -> its body, for the rules of a rule file declared at the top level."""
    pattern = r"^rule (\w+):\n((?:(?:    .*)?\n)*)"
    return {m.group(1): m.group(2).rstrip("\n") + "\n" for m in re.finditer(pattern, text, re.M)}


def directives(body: str) -> dict[str, str]:
    """A rule's directives -> their text (the lines under them)."""
    parts = re.split(r"^    (\w+):", body, flags=re.M)
    return {name: text for name, text in zip(parts[1::2], parts[2::2])}


# =========================================================================== fast: the examples stay whole


def test_the_documented_rule_names_every_directive_of_the_workflows_figure_rules():
    """Every directive that all the papers' figure rules use is in the page's rule, in the shape
    they use it: input code, output published with a drawing, log, benchmark, conda, params
    settings and seed, message, script; and the page's rule is a rule of the workflow."""
    rules = {}
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        rules.update(rule_blocks(path.read_text()))
    figure_rules = {name: directives(body) for name, body in rules.items() if "drawing=" in body}
    assert len(figure_rules) > 10
    shared = set.intersection(*(set(d) for d in figure_rules.values()))
    assert shared == set(DIRECTIVES), "the directives every figure rule uses changed: update DIRECTIVES and the page"

    documented = directives(rule_blocks(documented_rule())["pf_pmf_bars"])
    assert set(DIRECTIVES) <= set(documented), f"the page's rule lacks {sorted(set(DIRECTIVES) - set(documented))}"
    assert re.search(r'code=script_code\("permute_and_flip/pmf_bars\.py"\)', documented["input"])
    assert re.search(r'\*\*published\(PF, "pmf_bars", FIGURE, "pf_pmf_bars\.rst", drawing="', documented["output"])
    assert re.search(r'settings=rule_settings\(PF, "pmf_bars"\),\s+seed=SEED,', documented["params"])
    for directive in ("log", "benchmark"):
        assert "{PF}/pmf_bars." in documented[directive]
    assert documented["conda"].strip() == "ENVIRONMENT"
    assert documented["script"].strip() == '"../scripts/permute_and_flip/pmf_bars.py"'
    assert rule_blocks(documented_rule())["pf_pmf_bars"] == rules["pf_pmf_bars"], (
        "the page's rule is not rule pf_pmf_bars of workflow/rules/permute_and_flip.smk"
    )


def test_the_documented_script_is_the_script_it_quotes():
    """The page's script, its imports included, is workflow/scripts/permute_and_flip/pmf_bars.py."""
    assert documented_script() == (REPO / "workflow/scripts/permute_and_flip/pmf_bars.py").read_text()


# =========================================================================== a toy figure, the documented way

TOY_COMPUTATION = '''\
"""A toy figure of docs/developing.md: the exact P&F pmf of one score vector and RNM-Exp's frequencies."""

from __future__ import annotations

import pandas as pd

from dpreplication import seeding
from dpreplication.mechanisms import selection, selection_sampling
from dpreplication.replications.permute_and_flip.exact import PAPER, score_vector
from dpreplication.statistics import counts


def toy_pmf(*, vector: str, epsilon: float, n: int, root_seed: int) -> pd.DataFrame:
    """One row per item of ``vector``: P&F's exact probability and the frequency in ``n`` RNM-Exp draws."""
    q = score_vector(vector)
    rng = seeding.generator(root_seed, PAPER, "toy_pmf", vector, epsilon, n)
    observed = counts(selection_sampling.SAMPLERS["A1 RNM-Exp"](q, epsilon, 1.0, n, rng), q.size)
    return pd.DataFrame(
        {
            "vector": vector,
            "epsilon": epsilon,
            "item": range(q.size),
            "exact": selection.permute_and_flip_pmf(q, epsilon),
            "sampled": observed / n,
            "n": n,
        }
    )
'''

TOY_STREAM_SITE = '''\
def toy_pmf_site(patch):
    from dpreplication.replications.permute_and_flip import toy

    run = with_defaults(toy.toy_pmf, vector="Q5", epsilon=1.0, n=200, root_seed=1)
    return Site(
        run,
        ("paper", "figure", "vector", "epsilon", "n"),
        tagged("permute_and_flip", "toy_pmf"),
        1,
        {"vector": {"vector": "QT"}, "epsilon": {"epsilon": 2.0}, "n": {"n": 300}, "seed": {"root_seed": 2}},
    )


'''

TOY_PLOT = '''\
"""A toy figure of docs/developing.md, drawn from its published table."""

from __future__ import annotations

import pandas as pd

from dpreplication.plotting.core import new_figure


def toy_pmf(data: pd.DataFrame, *, title: str):
    """Exact probabilities as bars, sampled frequencies as dots; columns item, exact, sampled, n."""
    figure, axes = new_figure(width=3.6, height=3.0)
    ax = axes[0][0]
    ax.bar(data["item"], data["exact"], color="0.85", edgecolor="0.4", label="exact")
    ax.plot(data["item"], data["sampled"], "o", label=f"sampled (n={int(data['n'].iloc[0]):,})")
    ax.set(xlabel="item", ylabel="probability", title=title)
    ax.legend()
    return figure
'''

TOY_SCHEMA = """\
      toy_pmf:
        description: "Toy figure of docs/developing.md: exact P&F pmf beside RNM-Exp frequencies."
        type: object
        additionalProperties: false
        default: {}
        properties:
          vector: {$ref: "#/$defs/score_vector", default: Q5, description: Score vector (see $defs.score_vector).}
          epsilon: {$ref: "#/$defs/epsilon", default: 1, description: Privacy budget ε.}
          n: {$ref: "#/$defs/count", default: 2000, description: Draws of RNM-Exp.}
"""

TOY_QUICK_N = 500
TOY_TITLE = "toy: Q5, ε = 1"

TOY_CLAIM = f"""\
  - id: toy_q5_eps1_pf_top
    section: "§3.4 Q5"
    claim: "Q5, ε=1: P&F selects the top item with probability 0.45197"
    expected: {TOP_ITEM_PROBABILITY}
    comparison: abs
    tolerance: 1e-05
    kind: spec
    from: {{table: toy_pmf, select: {{vector: "Q5", epsilon: 1, item: 0}}, column: exact}}
"""


REPOSITORY_CHECKS = (
    "tests/privacy/test_streams.py::test_every_call_site_is_covered",
    "tests/privacy/test_streams.py::test_each_call_site_gives_each_key_its_own_stream[P&F toy pmf]",
    "tests/test_settings_signatures.py",
    "-k",
    "covered or toy",
)
"""The tests of the copy that check a new computation: its call site covered and its streams, its
settings' signature (the toy rule's cases only)."""


def replace_once(text: str, old: str, new: str, where: str) -> str:
    assert text.count(old) == 1, f"{where}: expected {old!r} once, found it {text.count(old)} times"
    return text.replace(old, new)


def insert(path: Path, anchor: str, text: str, *, before: bool = False) -> None:
    """Insert ``text`` after (or before) the line ``anchor``, which ``path`` holds once."""
    new = text + anchor if before else anchor + text
    path.write_text(replace_once(path.read_text(), anchor, new, str(path.name)))


def add_toy_figure(copy: Path) -> None:
    """Steps 1–6 of "Adding a figure", in ``copy``, for ``toy_pmf``."""
    # 1. The computation in replications/<paper>/: keyword settings without defaults, the seed as
    #    root_seed, every draw from seeding.generator(root_seed, PAPER, <keys>). Its call site in
    #    tests/privacy/test_streams.py: a Site in SITES and, a new module, a path in `covered`.
    (copy / f"src/dpreplication/replications/{PF}/toy.py").write_text(TOY_COMPUTATION)
    streams = copy / "tests/privacy/test_streams.py"
    insert(streams, "SITES = {\n", TOY_STREAM_SITE, before=True)
    insert(streams, '    "P&F privacy audit": privacy_audit_site,\n', '    "P&F toy pmf": toy_pmf_site,\n')
    insert(streams, f'        "replications/{PF}/sampling",\n', f'        "replications/{PF}/toy",\n')
    # 2. The plot in plotting/: a function of the frame and plain keyword arguments.
    (copy / "src/dpreplication/plotting/toy.py").write_text(TOY_PLOT)
    # 3. The settings in the schema, each with a description and a default; the quick profile overrides n.
    insert(copy / "workflow/schemas/config.schema.yaml", "      tv_convergence:\n", TOY_SCHEMA, before=True)
    insert(copy / "config/profiles/quick.yaml", f"{PF}:\n", f"  {TOY}:\n    n: {TOY_QUICK_N}\n")
    # 4. The rule: the page's own, renamed; its caption; its entry in the paper's RULES.
    rule = replace_once(documented_rule(), "distributions.pmf_bars", "toy.toy_pmf", "the page's rule")
    rule = replace_once(
        rule, "F1, exact pmf against A1–A4 samples", "toy, exact pmf against RNM-Exp", "the page's rule"
    )
    rules = copy / f"workflow/rules/{PF}.smk"
    rules.write_text(rules.read_text() + "\n\n" + rule.replace("pmf_bars", TOY))
    (copy / "workflow/report/pf_toy_pmf.rst").write_text("Toy: exact P&F pmf of Q5 (bars) and RNM-Exp frequencies.\n")
    insert(copy / f"src/dpreplication/replications/{PF}/rule_settings.py", '"anchors",\n', f'            "{TOY}",\n')
    # 5. The script: the page's own, renamed, with an argument of the drawing function.
    script = replace_once(documented_script(), "import sampling as pf", "import toy as pf", "the page's script")
    script = replace_once(script, "drawing={}", f"drawing={{'title': {TOY_TITLE!r}}}", "the page's script")
    (copy / f"workflow/scripts/{PF}/{TOY}.py").write_text(script.replace("pmf_bars", TOY))
    # 6. The claim, reading the published table.
    registry = copy / f"workflow/claims/{PF}.yaml"
    registry.write_text(registry.read_text() + TOY_CLAIM)


def run(copy: Path, *command: str) -> subprocess.CompletedProcess:
    """``command`` in ``copy``, importing the copy's own package (the workflow checks which it imports)."""
    environment = {**os.environ, "PYTHONPATH": str(copy / "src"), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run(command, cwd=copy, env=environment, capture_output=True, text=True, timeout=600)


def output(result: subprocess.CompletedProcess) -> str:
    return result.stdout + result.stderr


def job_inputs(dry_run: str, rule: str) -> list[str]:
    """The inputs of the (first) job of ``rule`` in a dry run's listing."""
    match = re.search(rf"^(?:local)?rule {rule}:\n    input: (.*)$", dry_run, re.M)
    assert match, f"the dry run plans no job of rule {rule}"
    return match.group(1).split(", ")


def job_reason(dry_run: str, message: str) -> set[str]:
    """The files named in the reason of the job a dry run announces by ``message`` (its rule's message,
    or the start of it)."""
    match = re.search(rf"^Job \d+: {re.escape(message)}.*\nReason: (.*)$", dry_run, re.M)
    assert match, f"the dry run plans no job {message!r}"
    return set(re.split(r"[:;,] ", match.group(1)))


def recorded_job(copy: Path, path: str) -> dict:
    """Snakemake's record of the job that wrote ``path`` (.snakemake/metadata: rule, inputs)."""
    return json.loads((copy / ".snakemake/metadata" / base64.urlsafe_b64encode(path.encode()).decode()).read_text())


@pytest.mark.workflow
def test_a_figure_added_as_documented_is_published_drawn_registered_and_judged(tmp_path):
    copy = copy_checkout(tmp_path / "checkout")
    add_toy_figure(copy)

    # Registered: the default target's plan computes and draws the toy; rule all requests its three
    # files, the paper's scorecard reads its table and the report shows its PNG.
    planned = run(copy, SNAKEMAKE, "-n", "--config", "profile=quick")
    assert planned.returncode == 0, output(planned)
    assert {TOY_CSV, TOY_JSON, TOY_PNG, TOY_PDF} <= set(job_inputs(planned.stdout, "all"))
    assert {TOY_CSV, TOY_JSON} <= job_reason(planned.stdout, "P&F: toy, exact pmf against RNM-Exp")
    assert TOY_CSV in job_reason(planned.stdout, f"draw {TOY_PNG} and its PDF with plotting.toy.toy_pmf")
    assert TOY_CSV in job_reason(planned.stdout, f"scorecard: claims of {PF}")
    assert TOY_PNG in job_reason(planned.stdout, "report: ")

    # The profile's job-rate timespan (10 s) holds a finished run open until it ends: 1 s here.
    made = run(
        copy,
        SNAKEMAKE,
        TOY_CSV,
        TOY_PNG,
        "--cores",
        "1",
        "--max-jobs-per-timespan",
        "100/1s",
        "--config",
        "profile=quick",
    )
    assert made.returncode == 0, output(made)
    # The CSV, its sidecar (the seed, the quick profile's settings, the drawing's arguments), the PNG and the PDF.
    for path in (TOY_CSV, TOY_JSON, TOY_PNG, TOY_PDF):
        assert (copy / path).is_file(), path
    table = pd.read_csv(copy / TOY_CSV)
    assert len(table) == 5 and set(table.n) == {TOY_QUICK_N}
    quick = profile_config("quick", copy)
    sidecar = json.loads((copy / TOY_JSON).read_text())
    assert sidecar["seed"] == quick["seed"]
    assert sidecar["settings"] == quick[PF][TOY] == {"vector": "Q5", "epsilon": 1, "n": TOY_QUICK_N}
    assert sidecar["drawing"] == {"title": TOY_TITLE}
    assert (sidecar["rule"], sidecar["script"]) == (f"pf_{TOY}", f"workflow/scripts/{PF}/{TOY}.py")
    assert f"dpreplication.replications.{PF}.toy.toy_pmf" in sidecar["calls"]
    # The PNG is drawn by the light rule, from the CSV, with the named plotting function; the computing
    # rule's code inputs are the new module's closure, without the plotting package.
    assert f"draw {TOY_PNG} and its PDF with plotting.toy.toy_pmf" in output(made)
    drawn, computed = recorded_job(copy, TOY_PNG), recorded_job(copy, TOY_CSV)
    assert drawn["rule"] == f"draw_{PF}_{TOY}" and computed["rule"] == f"pf_{TOY}"
    assert {TOY_CSV, TOY_JSON, "src/dpreplication/plotting/toy.py"} <= set(drawn["input"])
    assert f"src/dpreplication/replications/{PF}/toy.py" in computed["input"]
    assert not [path for path in computed["input"] if "/plotting/" in path]

    # The claim loads with the registry and holds on the published table.
    claims = claims_on(load_registry(copy / f"workflow/claims/{PF}.yaml"), {TOY})
    assert [claim.id for claim in claims] == ["toy_q5_eps1_pf_top"]
    judged = evaluate_claims(claims, {TOY: table})
    assert judged.status.tolist() == ["pass"], judged.to_dict("records")

    # The repository's own checks of a new computation (step 1): its streams, no defaults, its settings.
    checks = run(copy, sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *REPOSITORY_CHECKS)
    passed = re.findall(r"^PASSED (.+)$", checks.stdout, re.M)
    assert checks.returncode == 0, output(checks)
    assert set(REPOSITORY_CHECKS[:2]) <= set(passed), checks.stdout
    for check in ("test_settings_from_the_config_have_no_default", "test_every_setting_is_a_parameter"):
        assert any(re.match(rf"tests/test_settings_signatures.py::{check}\w*\[pf_toy_pmf-", p) for p in passed), check

    # Lint: Snakemake's linter on the workflow, snakefmt on the edited rule file.
    linted = run(copy, SNAKEMAKE, "--lint", "--config", "profile=quick")
    assert linted.returncode == 0 and "Lints for" not in output(linted), output(linted)
    formatted = run(copy, SNAKEFMT, "--check", "--diff", "workflow/rules/permute_and_flip.smk")
    assert formatted.returncode == 0, output(formatted)
