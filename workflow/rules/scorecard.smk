"""Scorecards: each paper's claims judged on its tables, then one scorecard for all."""


rule paper_scorecard:
    message: "scorecard: claims of {wildcards.paper}"
    input:
        unpack(lambda w: CLAIM_TABLES[w.paper]),
        registry=lambda w: claim_registry(w.paper),
        code=code_inputs("scorecard"),
    output:
        csv=f"{FIGURES}/{{paper}}/scorecard.csv",
        md=f"{FIGURES}/{{paper}}/scorecard.md",
    conda: ENVIRONMENT
    log: f"{LOGS}/{{paper}}/scorecard.log"
    script: "../scripts/scorecard/paper.py"


rule scorecard:
    message: "scorecard: all papers"
    input:
        expand(rules.paper_scorecard.output.csv, paper=sorted(CLAIM_TABLES)),
        code=code_inputs("scorecard"),
    output:
        csv=f"{FIGURES}/scorecard.csv",
        md=report(f"{FIGURES}/scorecard.md", caption="../report/scorecard.rst", category="scorecard"),
    conda: ENVIRONMENT
    log: f"{LOGS}/scorecard.log"
    script: "../scripts/scorecard/combine.py"


rule report_html:
    message: "report: landing page, scorecard, every figure with its caption and parameters"
    input:
        shown=[item["path"] for item in REPORT_ITEMS],
        sidecars=[item["sidecar"] for item in REPORT_ITEMS if item["sidecar"]],
        captions=[item["caption"] for item in REPORT_ITEMS],
        scorecard=rules.scorecard.output.csv,
        code=code_inputs("pipeline/report.py", "scorecard", plots=False),
    output: REPORT
    params: report_items=REPORT_ITEMS
    conda: ENVIRONMENT
    log: f"{LOGS}/report.log"
    script: "../scripts/report.py"
