"""Per-rule cluster resources from benchmark records: the scaling arithmetic on made-up records,
the rule/record mapping and the paper-profile scales on the real workflow."""

import re
from pathlib import Path

import pytest
import yaml

from dpreplication.cluster_resources import (
    PAPER_SAMPLE_SIZES,
    PAPER_UNMEASURED,
    benchmark_globs,
    load_workflow,
    local_rules,
    paper_scales,
    rule_resources,
)
from dpreplication.workflow_config import profile_config

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = load_workflow(ROOT / "Snakefile")
RECORD = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n{s}\t0:00:00\t{rss}\t0\t0\t0\t0\t0\t0\t{s}\n"


def write_record(path: Path, seconds: float, rss: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RECORD.format(s=seconds, rss=rss))


def test_batched_rules_scale_per_repetition_and_sampled_rules_by_their_ratio(tmp_path):
    write_record(tmp_path / "job/A/reps0-9.tsv", 100, 300)  # 10 s per repetition
    write_record(tmp_path / "job/B/reps10-14.tsv", 60, 700)  # 12 s per repetition: the slowest
    write_record(tmp_path / "pmf.tsv", 60, 200)
    write_record(tmp_path / "plain.tsv", 600, 100)
    globs = {"job": str(tmp_path / "job/*/reps*.tsv"), "pf_pmf_bars": str(tmp_path / "pmf.tsv")}
    table = rule_resources({**globs, "plain": str(tmp_path / "plain.tsv")}, 25, {"pf_pmf_bars": 10}).set_index("rule")
    assert table.loc["job", "batched"] and table.loc["job", "slowest_seconds_per_unit"] == 12
    assert table.loc["job", "runtime"] == 15  # 3 × 12 s × 25 = 900 s
    assert table.loc["job", "mem_mb"] == 1400  # 2 × 700 MB
    assert table.loc["pf_pmf_bars", "runtime"] == 30  # 3 × 60 s × 10 = 1800 s
    assert table.loc["plain", "runtime"] == 30 and table.loc["plain", "mem_mb"] == 1000  # the floors
    assert rule_resources({"none": str(tmp_path / "absent/*.tsv")}, 25, {}).empty


def test_every_benchmark_directive_maps_to_a_records_glob():
    text = "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    globs = benchmark_globs(WORKFLOW, Path("records"))
    assert len(globs) >= text.count("benchmark:")  # a directive inside a loop defines several rules
    assert globs["privgene_fig5"] == "records/privgene/fig5_kmeans.tsv"
    assert all("{" not in g and g.startswith("records/") for g in globs.values())
    assert globs["privgene_comparison_job"] == "records/privgene/comparison/*/*/reps*.tsv"
    assert globs["pf_pmf_bars"] == "records/permute_and_flip/pmf_bars.tsv"


def test_paper_scales_come_from_the_two_profiles():
    repetitions, ratios = paper_scales(ROOT)
    paper, base = profile_config("paper", ROOT), profile_config("default", ROOT)
    assert repetitions == paper["privgene"]["repetitions_per_job"]
    assert (
        ratios["tl_monte_carlo"]
        == paper["truncated_laplace"]["monte_carlo"]["n_samples"]
        / (base["truncated_laplace"]["monte_carlo"]["n_samples"])
    )
    assert set(ratios) == set(PAPER_SAMPLE_SIZES) and all(r >= 1 for r in ratios.values())


def test_the_slurm_profile_sets_measured_resources_for_every_submitted_rule():
    profile = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())
    resources = profile.get("set-resources")
    if resources is None:
        pytest.fail("profiles/slurm/config.yaml has no set-resources block: run `make cluster-resources`")
    rules = set(
        re.findall(r"^rule (\w+):", "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk")), re.M)
    )
    benchmarked = set(benchmark_globs(WORKFLOW, Path("records")))
    submitted = benchmarked - local_rules(ROOT / "Snakefile") - set(PAPER_UNMEASURED)
    assert set(resources) <= rules - local_rules(ROOT / "Snakefile"), set(resources) - rules
    assert set(resources) == submitted, submitted ^ set(resources)
    for rule, values in resources.items():
        assert values["runtime"] >= 5 and values["mem_mb"] >= 1000 and values["cpus_per_task"] == 1, rule
