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
include: "workflow/rules/scorecard.smk"


rule all:
    default_target: True
    input:
        rules.scorecard.output,
        ALL_OUTPUTS,
        REPORT,
