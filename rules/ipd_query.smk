# Stage 1 of the prisoner's-dilemma study: query jobs (one per model x experiment x condition).


rule ipd_elicit:
    output:
        answers="results/ipd/{experiment}/answers/{model}/{condition}.parquet",
        stats="results/ipd/{experiment}/answers/{model}/{condition}.stats.json",
    log:
        "logs/ipd/{experiment}/{model}/{condition}.log",
    params:
        condition=lambda w: ipd_condition(w.experiment, w.condition),
        model=lambda w: model_params(w.model),
        templates=lambda w: ipd_templates(w.experiment),
        system_prompt=config["ipd"]["system_prompt"],
        max_reasks=config["ipd"]["max_reasks"],
        runtime=RUNTIME,
        sample_on_fallback=True,
    resources:
        embedded_llm=lambda w: is_embedded(w.model),
        api_calls=lambda w: api_calls([w.model]),
        budget_usd=lambda w: budget_usd(w.model),
    conda:
        "../envs/query.yaml"
    script:
        "../workflow_scripts/scripts/ipd/elicit.py"


rule ipd_merge:
    input:
        answers=lambda w: ipd_answer_files(w.experiment),
        stats=lambda w: ipd_answer_files(w.experiment, "stats.json"),
    output:
        answers="results/ipd/{experiment}/answers.parquet",
        stats=report_item("results/ipd/{experiment}/query_stats.csv", "ipd/experiment/query_stats"),
    log:
        "logs/ipd/{experiment}/merge.log",
    params:
        table="elicitation",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/merge.py"
