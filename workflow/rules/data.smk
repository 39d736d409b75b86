"""Datasets: fetched from the canonical URL (or the offline mirror), verified by SHA256."""


rule fetch_data_file:
    message: "data: fetch and verify {wildcards.dataset}/{wildcards.filename}"
    output: f"{DATA}/{{dataset}}/{{filename}}"
    params:
        mirror=config["data"]["mirror"],
    log: f"logs/data/{{dataset}}/{{filename}}.log"
    localrule: True
    priority: CRITICAL_PATH
    conda: ENVIRONMENT
    retries: 1
    script: "../scripts/data/fetch.py"

