# Stage 2 of the prisoner's-dilemma study: counts, Wilson estimates, memory-1 strategies (answers of
# label-swap controls mapped back to cooperate / defect first), and the label-swap comparison.


rule ipd_estimates:
    input:
        answers="results/ipd/{experiment}/answers.parquet",
    output:
        counts=report_item("results/ipd/{experiment}/counts.csv", "ipd/experiment/counts"),
        estimates=report_item("results/ipd/{experiment}/estimates.csv", "ipd/experiment/estimates"),
        strategies=report_item("results/ipd/{experiment}/strategies.csv", "ipd/experiment/strategies"),
        invalid=report_item("results/ipd/{experiment}/invalid_rates.csv", "ipd/experiment/invalid_rates"),
    log:
        "logs/ipd/{experiment}/estimates.log",
    params:
        conditions=lambda w: [c.as_dict() for c in IPD_CONDITIONS[w.experiment]],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/estimates.py"


rule ipd_label_swap:
    input:
        counts="results/ipd/{experiment}/counts.csv",
    output:
        table=report_item("results/ipd/{experiment}/label_swap.csv", "ipd/experiment/label_swap"),
        markdown=report_item("results/ipd/{experiment}/tables/label_swap.md", "ipd/experiment/label_swap"),
    log:
        "logs/ipd/{experiment}/label_swap.log",
    params:
        alpha=IPD_ANALYSIS["label_swap_alpha"],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/label_swap.py"
