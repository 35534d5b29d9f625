# Nash / partner / rival classes of every inferred strategy (seed 001, SI §6.2, Tables S27-S31), at
# ipd.analysis.classify_w (0 and 0.01) and at the experiment's own stopping probability; Fig. 1C (payoff
# range of each strategy against any co-player).
# Needs from rules/common.smk: IPD_ANALYSIS.


rule ipd_classify:
    input:
        strategies="results/ipd/{experiment}/strategies.csv",
    output:
        classes=report_item("results/ipd/{experiment}/classification.csv", "ipd/experiment/classification"),
        table=report_item("results/ipd/{experiment}/tables/classification.md", "ipd/experiment/classification"),
    log:
        "logs/ipd/{experiment}/classify.log",
    params:
        ws=IPD_ANALYSIS["classify_w"],
        random_opponents=IPD_ANALYSIS["random_opponents"],
        seed=IPD_ANALYSIS["seed"],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/classify.py"


rule ipd_figure_payoff_range:
    input:
        classes="results/ipd/{experiment}/classification.csv",
        strategies="results/ipd/{experiment}/strategies.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/payoff_range.png", "ipd/experiment/payoff_range"),
        pdf="results/ipd/{experiment}/figures/payoff_range.pdf",
    log:
        "logs/ipd/{experiment}/figure_payoff_range.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/figure_payoff_range.py"
