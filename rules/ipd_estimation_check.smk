# The probability method beside sampling (issue 11): for the memory-1 experiments of
# ipd.analysis.estimation_check, one log-probability request per scenario and condition of every model
# that can estimate from log-probabilities, compared with the elicitation's sampled Wilson intervals.
# Needs from rules/common.smk: ipd_condition, ipd_templates, model_params, ipd_logprob_files, is_embedded.


rule ipd_logprobs:
    output:
        answers="results/ipd/{experiment}/logprobs/{model}/{condition}.parquet",
        stats="results/ipd/{experiment}/logprobs/{model}/{condition}.stats.json",
    log:
        "logs/ipd/{experiment}/logprobs/{model}/{condition}.log",
    params:
        condition=lambda w: ipd_condition(w.experiment, w.condition),
        model=lambda w: model_params(w.model, estimation="logprobs"),
        templates=lambda w: ipd_templates(w.experiment),
        system_prompt=config["ipd"]["system_prompt"],
        max_reasks=config["ipd"]["max_reasks"],
        runtime=RUNTIME,
        sample_on_fallback=False,
    resources:
        embedded_llm=lambda w: is_embedded(w.model),
        api_calls=lambda w: api_calls([w.model]),
        budget_usd=lambda w: budget_usd(w.model),
    conda:
        "../envs/query.yaml"
    script:
        "../workflow_scripts/scripts/ipd/elicit.py"


rule ipd_logprobs_merge:
    input:
        answers=lambda w: ipd_logprob_files(w.experiment),
        stats=lambda w: ipd_logprob_files(w.experiment, "stats.json"),
    output:
        answers="results/ipd/{experiment}/logprob_answers.parquet",
        stats=report_item("results/ipd/{experiment}/logprob_query_stats.csv", "ipd/experiment/query_stats"),
    log:
        "logs/ipd/{experiment}/logprobs_merge.log",
    params:
        table="elicitation",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/merge.py"


rule ipd_estimation_check:
    input:
        estimates="results/ipd/{experiment}/estimates.csv",
        logprobs="results/ipd/{experiment}/logprob_answers.parquet",
    output:
        csv=report_item("results/ipd/{experiment}/estimation_check.csv", "ipd/experiment/estimation_check"),
        table=report_item("results/ipd/{experiment}/tables/estimation_check.md", "ipd/experiment/estimation_check"),
        png=report_item("results/ipd/{experiment}/figures/estimation_check.png", "ipd/experiment/estimation_check"),
        pdf="results/ipd/{experiment}/figures/estimation_check.pdf",
    log:
        "logs/ipd/{experiment}/estimation_check.log",
    params:
        labels=lambda w: {c.id: c.labels for c in IPD_CONDITIONS[w.experiment]},
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/estimation_check.py"
