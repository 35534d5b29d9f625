# Stage 2 of the prisoner's-dilemma study: counts, Wilson estimates, memory-1 strategies.


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
