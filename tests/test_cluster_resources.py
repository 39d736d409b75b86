"""Per-rule cluster resources from benchmark records: the scaling arithmetic on made-up records,
the rule/record mapping and the paper-profile scales on the real workflow."""

import glob
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dpreplication.pipeline.cluster_resources import local_rules, main, rule_resources
from dpreplication.pipeline.config import profile_config
from dpreplication.pipeline.cost_page import (
    costs_markdown,
    project_largest_jobs,
    read_costs,
    rule_costs,
    run_against_projection,
    same_jobs_projection,
)
from dpreplication.pipeline.measurements import benchmark_globs, benchmark_records
from dpreplication.pipeline.paper_plan import (
    MAX_JOB_CPU_MINUTES,
    PAPER_SAMPLE_SIZES,
    PAPER_UNMEASURED,
    over_bound,
    paper_scales,
    planned_batches,
)
from dpreplication.pipeline.snakefile import load_workflow

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = load_workflow(ROOT / "Snakefile")
RECORD = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n{s}\t0:00:00\t{rss}\t0\t0\t0\t0\t0\t0\t{s}\n"


def found(globs: dict[str, str]) -> dict[str, list[str]]:
    """``{rule: the files of its glob}``, as :func:`benchmark_records` finds them."""
    return {rule: sorted(glob.glob(pattern)) for rule, pattern in globs.items()}


def write_record(path: Path, seconds: float, rss: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RECORD.format(s=seconds, rss=rss))


def test_batched_rules_scale_per_repetition_and_sampled_rules_by_their_ratio(tmp_path):
    write_record(tmp_path / "job/A/reps0-9.tsv", 100, 300)  # 10 s per repetition
    write_record(tmp_path / "job/B/reps10-14.tsv", 60, 700)  # 12 s per repetition: the slowest
    write_record(tmp_path / "pmf.tsv", 60, 200)
    write_record(tmp_path / "plain.tsv", 600, 100)
    globs = {"job": str(tmp_path / "job/*/reps*.tsv"), "pf_pmf_bars": str(tmp_path / "pmf.tsv")}
    table = rule_resources(found({**globs, "plain": str(tmp_path / "plain.tsv")}), 25, {"pf_pmf_bars": 10}).set_index(
        "rule"
    )
    assert table.loc["job", "batched"] and table.loc["job", "slowest_seconds_per_unit"] == 12
    assert table.loc["job", "runtime"] == 15  # 3 × 12 s × 25 = 900 s
    assert table.loc["job", "mem_mb"] == 1400  # 2 × 700 MB
    assert table.loc["pf_pmf_bars", "runtime"] == 30  # 3 × 60 s × 10 = 1800 s
    assert table.loc["plain", "runtime"] == 30 and table.loc["plain", "mem_mb"] == 1000  # the floors
    # the largest paper job: the largest CPU per unit (B's 12 s) × 25 repetitions; 60 CPU-s × 10; 600 CPU-s
    assert table.loc["job", "largest_cpu_seconds_per_unit"] == 12 and table.loc["job", "paper_job_cpu_minutes"] == 5
    assert table.loc["pf_pmf_bars", "paper_job_cpu_minutes"] == 10 and table.loc["plain", "paper_job_cpu_minutes"] == 10
    assert rule_resources(found({"none": str(tmp_path / "absent/*.tsv")}), 25, {}).empty


def test_a_rule_with_its_own_paper_batch_is_scaled_by_that_batch_and_held_to_the_bound(tmp_path):
    """12 CPU-s per repetition: at the profile's 60 repetitions per job a paper job is projected to 12
    CPU-minutes, over the bound; planned in batches of 20 (the paper dry run's largest), to 4, and its
    runtime limit shrinks with it. A batched rule the plan does not list keeps the profile's size."""
    write_record(tmp_path / "job/A/reps0-4.tsv", 60, 300)
    records = found({"job": str(tmp_path / "job/*/reps*.tsv")})
    whole = rule_resources(records, 60, {}).set_index("rule")
    assert whole.loc["job", "paper_job_cpu_minutes"] == pytest.approx(12) and whole.loc["job", "runtime"] == 36
    assert list(over_bound(whole.reset_index()).rule) == ["job"]
    cut = rule_resources(records, 60, {}, {"job": 20, "other": 1}).set_index("rule")
    assert cut.loc["job", "paper_job_cpu_minutes"] == pytest.approx(4) and cut.loc["job", "runtime"] == 12
    assert over_bound(cut.reset_index()).empty and not over_bound(cut.reset_index(), 3).empty
    assert rule_resources(records, 60, {}, {"other": 1}).paper_job_cpu_minutes.item() == pytest.approx(12)


def test_a_jobs_exact_record_replaces_snakemakes_sample(tmp_path):
    """Snakemake saw 10 CPU-s and 300 MB; the job's own record at exit, 40 CPU-s and 900 MB, wins."""
    write_record(tmp_path / "job/A/reps0-9.tsv", 10, 300)
    (tmp_path / "job/A/reps0-9.usage.json").write_text(json.dumps({"cpu_s": 40.0, "max_rss_mb": 900.0}))
    write_record(tmp_path / "job/B/reps10-14.tsv", 5, 100)  # no exact record: the sample stays
    table = rule_resources(found({"job": str(tmp_path / "job/*/reps*.tsv")}), 25, {}).set_index("rule")
    assert table.loc["job", "cpu_seconds"] == 45 and table.loc["job", "exact_records"] == 1
    assert table.loc["job", "max_rss_mb"] == 900 and table.loc["job", "jobs_measured"] == 2
    costs = rule_costs(table.reset_index(), pd.DataFrame({"rule": ["job"], "jobs": [2], "units": [15]}))
    assert "(1 of 2 jobs;" in costs_markdown(costs, "records", "default")


def test_costs_project_measured_cpu_per_unit_to_the_paper_plan(tmp_path):
    """CPU per repetition × the paper's repetitions × the grid ratio; a rule behind a checkpoint
    keeps its measured work; an unmeasured rule is not projected nor totalled."""
    write_record(tmp_path / "job/A/reps0-9.tsv", 100, 300)  # 150 CPU-s in 15 repetitions: 10 s each
    write_record(tmp_path / "job/B/reps10-14.tsv", 50, 300)
    write_record(tmp_path / "behind.tsv", 30, 100)
    write_record(tmp_path / "lp.tsv", 60, 100)
    globs = {
        name: str(tmp_path / pattern)
        for name, pattern in [("job", "job/*/reps*.tsv"), ("behind", "behind.tsv"), (PAPER_UNMEASURED[0], "lp.tsv")]
    }
    table = rule_resources(found(globs), 25, {"job": 1.5})
    paper = pd.DataFrame({"rule": ["job", PAPER_UNMEASURED[0]], "jobs": [40, 1], "units": [1000, 1]})
    costs = rule_costs(table, paper).set_index("rule")
    assert costs.loc["job", "jobs"] == 2 and costs.loc["job", "cpu_minutes"] == 150 / 60
    assert costs.loc["job", "paper_jobs"] == 40
    assert costs.loc["job", "paper_cpu_hours"] == pytest.approx(10 * 1.5 * 1000 / 3600)
    assert costs.loc["behind", "paper_jobs"] == 1 and costs.loc["behind", "paper_cpu_hours"] == pytest.approx(30 / 3600)
    assert np.isnan(costs.loc[PAPER_UNMEASURED[0], "paper_cpu_hours"])
    markdown = costs_markdown(costs.reset_index(), "records", "default")
    assert (
        "| **all** | 4 | 4.00 | 42 | 4.18 |  | 6.25 |" in markdown
    )  # 240 CPU-s; 4.1667 + 0.0083 CPU-h; 10 × 25 × 1.5 s
    assert f"| `{PAPER_UNMEASURED[0]}` | 1 | 1.00 | 1 | not projected | 60.00 per job | not projected |" in markdown
    assert "the largest is `job`'s, 6.25 CPU-minutes" in markdown


def test_the_costs_page_keeps_the_basis_of_the_largest_jobs_and_reads_it_back(tmp_path):
    """docs/costs.md states each rule's largest CPU per unit: read back, it projects the same largest jobs
    for the same plan, and a plan of larger batches moves them over the bound."""
    write_record(tmp_path / "job/A/reps0-9.tsv", 100, 300)
    write_record(tmp_path / "job/B/reps10-14.tsv", 60, 300)  # 12 CPU-s per repetition
    write_record(tmp_path / "pmf.tsv", 6, 100)
    write_record(tmp_path / "lp.tsv", 60, 100)
    globs = {"job": "job/*/reps*.tsv", "pf_pmf_bars": "pmf.tsv", PAPER_UNMEASURED[0]: "lp.tsv"}
    table = rule_resources(
        found({r: str(tmp_path / g) for r, g in globs.items()}), 25, {"pf_pmf_bars": 10}, {"job": 40}
    )
    paper = pd.DataFrame({"rule": ["job", "pf_pmf_bars"], "jobs": [20, 1], "units": [800, 1]})
    page = tmp_path / "costs.md"
    page.write_text(costs_markdown(rule_costs(table, paper), "records", "default"))
    basis = read_costs(page).set_index("rule")
    assert basis.loc["job", "batched"] and basis.loc["job", "largest_cpu_seconds_per_unit"] == 12
    assert basis.loc["job", "paper_jobs"] == 20 and basis.loc["job", "paper_job_cpu_minutes"] == 8  # 12 s × 40
    assert not basis.loc["pf_pmf_bars", "batched"] and basis.loc["pf_pmf_bars", "paper_job_cpu_minutes"] == 1
    assert np.isnan(basis.loc[PAPER_UNMEASURED[0], "paper_job_cpu_minutes"])
    again = project_largest_jobs(basis.reset_index(), 25, {"pf_pmf_bars": 10}, {"job": 40}).set_index("rule")
    pd.testing.assert_series_equal(again.paper_job_cpu_minutes, basis.paper_job_cpu_minutes)
    larger = project_largest_jobs(basis.reset_index(), 25, {"pf_pmf_bars": 10}, {"job": 60})
    assert list(over_bound(larger).rule) == ["job"]  # 12 s × 60 = 12 CPU-minutes


def test_no_paper_job_is_projected_over_the_bound():
    """The paper profile's plan of now, projected from the basis docs/costs.md keeps (the largest CPU
    per repetition or job of a default run's records): no job over MAX_JOB_CPU_MINUTES. One dry run
    of the paper profile (--summary, about 4 s)."""
    basis = read_costs(ROOT / "docs/costs.md")
    if "largest_cpu_seconds_per_unit" not in basis:
        pytest.skip(
            "docs/costs.md states no largest job per rule: run `make cluster-resources` on a default run's records"
        )
    repetitions, ratios = paper_scales(ROOT)
    projected = project_largest_jobs(basis, repetitions, ratios, planned_batches(ROOT / "Snakefile", "paper"))
    over = over_bound(projected)
    assert over.empty, (
        f"paper jobs over {MAX_JOB_CPU_MINUTES:g} CPU-minutes: {dict(zip(over.rule, over.paper_job_cpu_minutes))}"
    )


def test_a_paper_run_is_held_against_the_projection_for_its_own_work(tmp_path):
    """The default profile measured 10 CPU-s per repetition and 20 s per job at a grid ratio 1.5; a paper
    run of 50 repetitions in 24 CPU-s each (1,200) against 500 projected: +140 %; the sampled rule ran 33 s
    against 30 projected: +10 %; an unmeasured rule is not projected."""
    write_record(tmp_path / "default/job/A/reps0-9.tsv", 100, 300)
    write_record(tmp_path / "default/sampled.tsv", 20, 100)
    write_record(tmp_path / "default/lp.tsv", 60, 100)
    write_record(tmp_path / "paper/job/A/reps0-24.tsv", 600, 300)
    write_record(tmp_path / "paper/job/A/reps25-49.tsv", 600, 300)
    write_record(tmp_path / "paper/sampled.tsv", 33, 100)
    write_record(tmp_path / "paper/lp.tsv", 600, 100)

    def resources(tree):
        globs = {"job": "job/*/reps*.tsv", "sampled": "sampled.tsv", PAPER_UNMEASURED[0]: "lp.tsv"}
        return rule_resources(
            found({rule: str(tmp_path / tree / g) for rule, g in globs.items()}), 25, {"sampled": 1.5}
        )

    costs = run_against_projection(resources("default"), resources("paper")).set_index("rule")
    assert costs.loc["job", "units"] == 50 and costs.loc["job", "jobs"] == 2
    assert costs.loc["job", "projected_cpu_seconds"] == pytest.approx(500)
    assert costs.loc["job", "error"] == pytest.approx(1.4)
    assert costs.loc["sampled", "projected_cpu_seconds"] == pytest.approx(30)
    assert costs.loc["sampled", "error"] == pytest.approx(0.1)
    assert np.isnan(costs.loc[PAPER_UNMEASURED[0], "projected_cpu_seconds"])


def test_a_slice_is_projected_from_the_same_jobs_records(tmp_path):
    """Dataset A cost 10 CPU-s per repetition in the default run, B 30: a paper batch of A projects to
    25 × 10 from A's records (the rule's mean, 20, would say 500); a plain job from its own record."""
    write_record(tmp_path / "default/job/A/reps0-9.tsv", 100, 1)
    write_record(tmp_path / "default/job/B/reps0-9.tsv", 300, 1)
    write_record(tmp_path / "default/plain.tsv", 7, 1)
    write_record(tmp_path / "paper/job/A/reps0-24.tsv", 260, 1)
    write_record(tmp_path / "paper/plain.tsv", 8, 1)
    run = {"job": [str(tmp_path / "paper/job/A/reps0-24.tsv")], "plain": [str(tmp_path / "paper/plain.tsv")]}
    projected = same_jobs_projection(run, tmp_path / "paper", tmp_path / "default", {"plain": 2.0})
    assert projected == {"job": pytest.approx(250), "plain": pytest.approx(14)}


def test_the_records_of_a_partial_run_write_nothing(tmp_path):
    """A records tree that lacks most rules (here only the datasets') is not a finished run's: the
    command stops before it replaces the committed costs and resources with one rule's."""
    write_record(tmp_path / "records/privgene/data/Adult.tsv", 1, 100)
    profile, costs = tmp_path / "config.yaml", tmp_path / "costs.md"
    profile.write_text("executor: slurm\n")
    arguments = [str(tmp_path / "records"), str(profile), "--costs", str(costs), "--checkout", str(ROOT)]
    with pytest.raises(SystemExit, match="have no records under"):
        main([*arguments, "--snakefile", str(ROOT / "Snakefile")])
    assert profile.read_text() == "executor: slurm\n" and not costs.exists()


def test_every_benchmark_directive_maps_to_a_records_glob():
    text = "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    globs = benchmark_globs(WORKFLOW, Path("records"))
    assert len(globs) >= text.count("benchmark:")  # a directive inside a loop defines several rules
    assert globs["privgene_fig5"] == "records/privgene/fig5_kmeans.tsv"
    assert all("{" not in g and g.startswith("records/") for g in globs.values())
    assert globs["privgene_comparison_job"] == "records/privgene/comparison/*/*/reps*.tsv"
    assert globs["pf_pmf_bars"] == "records/permute_and_flip/pmf_bars.tsv"


def test_each_record_counts_for_the_one_rule_that_names_it(tmp_path):
    """The teachers' glob prediction_teachers_*_*.tsv also finds the seed replicates' records; their
    directives' patterns (wildcard constraints included) give each file to one rule (docs/costs.md had
    counted the replicates' 8.4 CPU-minutes twice)."""
    for name in ["mnist_private", "mnist_private_1", "fashion_mnist_nonprivate_2"]:
        write_record(tmp_path / f"darrm/prediction_teachers_{name}.tsv", 1, 1)
    records = benchmark_records(WORKFLOW, tmp_path)
    teachers, replicates = records["darrm_prediction_teachers"], records["darrm_prediction_teacher_replicate"]
    assert [Path(p).name for p in teachers] == ["prediction_teachers_mnist_private.tsv"]
    assert sorted(Path(p).name for p in replicates) == [
        "prediction_teachers_fashion_mnist_nonprivate_2.tsv",
        "prediction_teachers_mnist_private_1.tsv",
    ]
    counted = [path for paths in records.values() for path in paths]
    assert len(counted) == len(set(counted)) == 3


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
    rules = {rule.name for rule in WORKFLOW.rules}
    benchmarked = set(benchmark_globs(WORKFLOW, Path("records")))
    submitted = benchmarked - local_rules(WORKFLOW) - set(PAPER_UNMEASURED)
    assert {name for name in rules if name.startswith("draw_")} <= local_rules(WORKFLOW)
    assert set(resources) <= rules - local_rules(WORKFLOW), set(resources) - rules
    assert set(resources) == submitted, submitted ^ set(resources)
    for rule, values in resources.items():
        assert values["runtime"] >= 5 and values["mem_mb"] >= 1000 and values["cpus_per_task"] == 1, rule


def test_the_paper_slice_plans_theory_rules_and_the_adult_batches_only():
    """benchmarks/paper_slice.py's targets: no teacher training, no unprojected LP grid, and of PrivGene
    only Fig. 3's Adult LR batches, each the paper's full batch of repetitions."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import paper_slice

    paper = load_workflow(ROOT / "Snakefile", {"profile": "paper"})
    repetitions, _ = paper_scales(ROOT)
    targets = paper_slice.slice_targets(paper, 2, int(repetitions))
    planned = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            *targets,
            "--config",
            "profile=paper",
            "-n",
            "--forceall",
            "--quiet",
            "rules",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", planned.split("Job stats:")[1], re.M))
    assert jobs["privgene_comparison_job"] == "2" and jobs["tl_density"] == "1" and jobs["darrm_f2_gamma_shapes"] == "1"
    assert not {"tl_lp_optimum", "darrm_prediction_teachers", "privgene_kmeans_job"} & jobs.keys()
    assert targets[-2:] == [
        "results/paper/work/privgene/comparison/Adult/lr/reps0-24.csv",
        "results/paper/work/privgene/comparison/Adult/lr/reps25-49.csv",
    ]
