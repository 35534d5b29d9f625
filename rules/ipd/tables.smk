# Prisoner's-dilemma study, stage tables (workflow_scripts/ipd/tables/): the elicitation tables (Tables S4-S26)
# and Tables S2-S3 (reference strategies, from workflow_scripts/gametheory/known.py).


rule ipd_tables:
    input:
        counts="results/ipd/{experiment}/counts.csv",
        strategies="results/ipd/{experiment}/strategies.csv",
    output:
        counts=report_item("results/ipd/{experiment}/tables/counts.md", "ipd/experiment/counts"),
        strategies=report_item("results/ipd/{experiment}/tables/strategies.md", "ipd/experiment/strategies"),
    log:
        "logs/ipd/{experiment}/tables.log",
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/tables.py"


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
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/references.py"
