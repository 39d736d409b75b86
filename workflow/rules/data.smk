"""Datasets: fetched from the canonical URL (or the offline mirror), verified by SHA256."""


rule fetch_data_file:
    output:
        f"{DATA}/{{dataset}}/{{filename}}",
    log:
        f"logs/data/{{dataset}}/{{filename}}.log",
    priority: CRITICAL_PATH
    retries: 1
    localrule: True
    conda:
        ENVIRONMENT
    params:
        mirror=config["data"]["mirror"],
    message:
        "data: fetch and verify {wildcards.dataset}/{wildcards.filename}"
    script:
        "../scripts/data/fetch.py"
