# Study-wide tables of the prisoner's-dilemma study (seed 001, SI §2-3): Table S1 (decoding parameters sent
# to each model, read from the response-cache entries of this run's answers) and Tables S2-S3 (reference
# strategies, from workflow_scripts/gametheory/known.py).
# Needs from rules/common.smk: ipd_experiments_of, config (cache.dir).
from workflow_scripts.ipd.design.conditions import STANDARD_PAYOFFS  # noqa: E402


rule ipd_decoding:
    input:
        answers=lambda w: [f"results/ipd/{e}/answers.parquet" for e in ipd_experiments_of("memory1", "memory2", "one_shot")]
        + [f"results/ipd/{e}/moves.parquet" for e in ipd_experiments_of("play")],
    output:
        csv=report_item("results/ipd/decoding.csv", "ipd/study/decoding"),
        table=report_item("results/ipd/decoding.md", "ipd/study/decoding"),
    log:
        "logs/ipd/decoding.log",
    params:
        cache_dir=config.get("cache", {}).get("dir", "cache"),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/decoding.py"


rule ipd_references:
    output:
        memory1=report_item("results/ipd/reference_strategies_memory1.csv", "ipd/study/references"),
        memory2=report_item("results/ipd/reference_strategies_memory2.csv", "ipd/study/references"),
        table=report_item("results/ipd/reference_strategies.md", "ipd/study/references"),
    log:
        "logs/ipd/references.log",
    params:
        payoffs=list(STANDARD_PAYOFFS),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/references.py"
