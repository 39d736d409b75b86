"""Scorecards: each paper's claims judged on its tables, then one scorecard for all."""


rule paper_scorecard:
    input:
        unpack(lambda w: CLAIM_TABLES[w.paper]),
        registry=lambda w: claim_registry(w.paper),
        code=script_code("scorecard/paper.py"),
    output:
        csv=f"{FIGURES}/{{paper}}/scorecard.csv",
        md=f"{FIGURES}/{{paper}}/scorecard.md",
    log:
        f"{LOGS}/{{paper}}/scorecard.log",
    conda:
        ENVIRONMENT
    message:
        "scorecard: claims of {wildcards.paper}"
    script:
        "../scripts/scorecard/paper.py"


rule scorecard:
    input:
        expand(rules.paper_scorecard.output.csv, paper=sorted(CLAIM_TABLES)),
        code=script_code("scorecard/combine.py"),
    output:
        csv=f"{FIGURES}/scorecard.csv",
        md=report(f"{FIGURES}/scorecard.md", caption="../report/scorecard.rst", category="scorecard"),
    log:
        f"{LOGS}/scorecard.log",
    conda:
        ENVIRONMENT
    message:
        "scorecard: all papers"
    script:
        "../scripts/scorecard/combine.py"


rule report_html:
    input:
        shown=[item["path"] for item in REPORT_ITEMS],
        sidecars=[item["sidecar"] for item in REPORT_ITEMS if item["sidecar"]],
        captions=[item["caption"] for item in REPORT_ITEMS],
        scorecard=rules.scorecard.output.csv,
        code=script_code("report.py"),
    output:
        REPORT,
    log:
        f"{LOGS}/report.log",
    conda:
        ENVIRONMENT
    params:
        report_items=REPORT_ITEMS,
    message:
        "report: landing page, scorecard, every figure with its caption and parameters"
    script:
        "../scripts/report.py"
