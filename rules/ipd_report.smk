# Stage 3 of the prisoner's-dilemma study: Markdown tables and figures.


rule ipd_tables:
    input:
        counts="results/ipd/{experiment}/counts.csv",
        strategies="results/ipd/{experiment}/strategies.csv",
    output:
        counts=report("results/ipd/{experiment}/tables/counts.md", category="IPD"),
        strategies=report("results/ipd/{experiment}/tables/strategies.md", category="IPD"),
    log:
        "logs/ipd/{experiment}/tables.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd_tables.py"


rule ipd_figure:
    input:
        estimates="results/ipd/{experiment}/estimates.csv",
        strategies="results/ipd/{experiment}/strategies.csv",
    output:
        report("results/ipd/{experiment}/figures/cooperation.png", category="IPD"),
        "results/ipd/{experiment}/figures/cooperation.pdf",
    log:
        "logs/ipd/{experiment}/figure.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd_figure.py"
