"""The DAG: every rule is listed, and one figure can be rebuilt alone."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--directory", str(REPO), "--snakefile", str(REPO / "Snakefile")]


def jobs(*args, profile="quick"):
    result = subprocess.run(
        [*SNAKEMAKE, "-n", "--forceall", *args, "--config", f"profile={profile}"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    table = result.stdout.split("Job stats:")[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


# Rules whose jobs a dry run of everything cannot list: they are reached through an input function
# that reads a checkpoint's output, and with --forceall that checkpoint has not run yet.
BEHIND_CHECKPOINTS = {
    "darrm_prediction_teachers": "results/quick/work/darrm/prediction/mnist_private_votes.npz",
    "darrm_prediction_teacher_replicate": "results/quick/work/darrm/prediction/replicates/mnist_private_1_votes.npz",
    "darrm_prediction_teacher_ablation_config": "results/quick/work/darrm/prediction/ablation/configs/stated_votes.npz",
    "privgene_comparison_extra_job": "results/quick/work/privgene/comparison_extra/Adult/lr/PrivGene/eps0.05/reps1-1.csv",
}


def listed_rules() -> set[str]:
    """Rule names from ``--list-rules``: the first word of each unindented line (a rule's docstring
    follows its name in parentheses and continues on indented lines)."""
    listing = subprocess.run([*SNAKEMAKE, "--list-rules"], cwd=REPO, capture_output=True, text=True).stdout
    return {line.split()[0] for line in listing.splitlines() if line and not line[0].isspace()}


def test_dry_run_lists_every_rule():
    listed = listed_rules()
    assert {"pf_pmf_bars", "privgene_comparison_job", "scorecard"} <= listed
    scheduled = jobs()
    assert listed - {"all"} - set(BEHIND_CHECKPOINTS) <= set(scheduled) | {"all"}, listed - set(scheduled)
    behind = jobs(*BEHIND_CHECKPOINTS.values())  # one dry run for the four: each target is one job of its rule
    for rule, output in BEHIND_CHECKPOINTS.items():
        assert behind.get(rule) == 1, f"{rule} cannot build {output}"


def test_one_figure_builds_only_what_it_needs():
    scheduled = jobs("results/quick/figures/permute_and_flip/pmf_bars.png")
    assert scheduled == {"pf_pmf_bars": 1, "draw_permute_and_flip_pmf_bars": 1, "total": 2}


def test_a_data_figure_pulls_only_its_data():
    scheduled = jobs("results/quick/figures/permute_and_flip/anchors.csv")
    assert scheduled == {"fetch_data_file": 1, "pf_anchors": 1, "total": 2}


def test_profiles_plan_a_job_count_a_cluster_accepts():
    """Batched PrivGene jobs (issue 16): at most 400 jobs in the default profile and 8,000 in the
    paper profile (unbatched they planned 1,870 and 68,078). Figs 3-4: one job per (dataset, task)
    and batch, every method in it: 4 datasets x 2 tasks x 10 repetitions in one batch of 50
    (default), x 500 repetitions in batches of 10 (paper, its own size: no job over 10 CPU-minutes);
    the reference job, one per batch of 25. Fig. 2: one job per (dataset, task, c) and batch."""
    default, paper = jobs(profile="default"), jobs(profile="paper")
    assert default["total"] <= 400 and paper["total"] <= 8_000, (default["total"], paper["total"])
    assert default["privgene_comparison_job"] == 4 * 2 * 1
    assert paper["privgene_comparison_job"] == 4 * 2 * 500 // 10
    assert paper["privgene_reference_job"] == 500 // 25
    assert default["privgene_choice_of_c_job"] == 2 * 2 * 8
    assert paper["privgene_choice_of_c_job"] == 2 * 2 * 12 * 500 // 25
