"""Replicate every figure and table of the four papers.

snakemake                                # default profile -> figures/
snakemake --config profile=quick         # CI profile -> results/quick/figures/
snakemake figures/permute_and_flip/tv_convergence.png   # one figure and what it needs
snakemake --forcerun pf_tv_convergence   # recompute one figure even if up to date
"""


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/permute_and_flip.smk"
include: "workflow/rules/truncated_laplace.smk"
include: "workflow/rules/darrm.smk"
include: "workflow/rules/privgene.smk"
include: "workflow/rules/drawing.smk"
include: "workflow/rules/scorecard.smk"


# On a cluster these run on the submitting host, not in a queue slot: fetching needs the network
# (compute nodes often have none), and the rest read finished job tables and draw in seconds.
localrules:
    all,
    fetch_data_file,
    privgene_choice_of_c,
    privgene_choice_of_c_epsilon,
    privgene_comparison_pairs,
    privgene_fig3,
    privgene_fig4,
    privgene_fig5,
    privgene_eem_vs_em,
    privgene_gupt_variants,
    privgene_paper_r_comparison,
    privgene_reference_levels,
    privgene_schedule_ablation,
    paper_scorecard,
    scorecard,
    report_html,


rule all:
    default_target: True
    input:
        rules.scorecard.output,
        ALL_OUTPUTS,
        REPORT,
