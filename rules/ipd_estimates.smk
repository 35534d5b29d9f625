# Stage 2 of the prisoner's-dilemma study: counts, Wilson estimates, memory-1 strategies (answers of
# label-swap controls mapped back to cooperate / defect first), and the label-swap comparison.


rule ipd_estimates:
    input:
        answers="results/ipd/{experiment}/answers.parquet",
    output:
        counts="results/ipd/{experiment}/counts.csv",
        estimates="results/ipd/{experiment}/estimates.csv",
        strategies="results/ipd/{experiment}/strategies.csv",
        invalid="results/ipd/{experiment}/invalid_rates.csv",
    log:
        "logs/ipd/{experiment}/estimates.log",
    params:
        conditions=lambda w: [c.as_dict() for c in IPD_CONDITIONS[w.experiment]],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd_estimates.py"


rule ipd_label_swap:
    input:
        counts="results/ipd/{experiment}/counts.csv",
    output:
        table="results/ipd/{experiment}/label_swap.csv",
        markdown=report("results/ipd/{experiment}/tables/label_swap.md", category="IPD"),
    log:
        "logs/ipd/{experiment}/label_swap.log",
    params:
        alpha=IPD_ANALYSIS["label_swap_alpha"],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd_label_swap.py"
