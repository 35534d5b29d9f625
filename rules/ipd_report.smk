# Stage 3 of the prisoner's-dilemma study: Markdown tables and figures.


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
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/tables.py"


rule ipd_figure:
    input:
        estimates="results/ipd/{experiment}/estimates.csv",
        strategies="results/ipd/{experiment}/strategies.csv",
    output:
        report_item("results/ipd/{experiment}/figures/cooperation.png", "ipd/experiment/cooperation"),
        "results/ipd/{experiment}/figures/cooperation.pdf",
    log:
        "logs/ipd/{experiment}/figure.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/figure.py"
