# Prisoner's-dilemma study (the IPD paper), stage query: the jobs that ask the models (workflow_scripts/ipd/query/).
# One query job per model (or pair) x experiment asks every selected condition of the experiment (only_conditions
# restricts them), in one prefix order through the model's one concurrency bound, and writes one counts entry
# per condition: each job is a fresh Python process whose start-up (imports, litellm's 6.5 CPU-s when it calls)
# is paid once per experiment instead of once per condition. Elicitation: one job per model x experiment,
# merged per experiment; the estimation check's log-probability requests (ipd.analysis.estimation_check):
# one per model that can estimate from log-probabilities x experiment; actual play (SI §4.6): one
# job per pair of models x experiment, every treatment. A job's params hold every condition it asks: editing
# one condition (a framing's text) reruns the experiment's job of every model, its answers from the cache.
# A served model's query jobs name its server's address as input (on a cluster only: rules/serve.smk) and share its
# partition. Needs the IPD grid (rules/ipd/grid.smk: ipd_conditions, ipd_condition_ids, ipd_templates,
# ipd_answer_files, ipd_logprob_files, ipd_game_files) and from rules/common.smk model_params, is_embedded, api_calls, budget_usd, RUNTIME,
# served_inputs, served_partition.


rule ipd_elicit:
    input:
        servers=lambda w: served_inputs([w.model]),
    output:
        answers="results/ipd/{experiment}/answers/{model}.parquet",
        stats="results/ipd/{experiment}/answers/{model}.stats.json",
    log:
        "logs/ipd/{experiment}/{model}.log",
    params:
        conditions=lambda w: ipd_conditions(w.experiment),
        model=lambda w: model_params(w.model, estimation=experiment_estimation(config["ipd"], w.experiment)),
        templates=lambda w: ipd_templates(w.experiment),
        system_prompt=config["ipd"]["system_prompt"],
        max_reasks=config["ipd"]["max_reasks"],
        runtime=RUNTIME,
        sample_on_fallback=True,
    resources:
        embedded_llm=lambda w: is_embedded(w.model),
        api_calls=lambda w: api_calls([w.model], len(ipd_condition_ids(w.experiment))),
        budget_usd=lambda w: budget_usd(w.model),
        slurm_partition=lambda w: served_partition([w.model]),
    conda:
        "../../envs/query.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/elicit.py"


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
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/merge.py"


rule ipd_logprobs:
    input:
        servers=lambda w: served_inputs([w.model]),
    output:
        answers="results/ipd/{experiment}/logprobs/{model}.parquet",
        stats="results/ipd/{experiment}/logprobs/{model}.stats.json",
    log:
        "logs/ipd/{experiment}/logprobs/{model}.log",
    params:
        conditions=lambda w: ipd_conditions(w.experiment),
        model=lambda w: model_params(w.model, estimation="logprobs"),
        templates=lambda w: ipd_templates(w.experiment),
        system_prompt=config["ipd"]["system_prompt"],
        max_reasks=config["ipd"]["max_reasks"],
        runtime=RUNTIME,
        sample_on_fallback=False,
    resources:
        embedded_llm=lambda w: is_embedded(w.model),
        api_calls=lambda w: api_calls([w.model], len(ipd_condition_ids(w.experiment))),
        budget_usd=lambda w: budget_usd(w.model),
        slurm_partition=lambda w: served_partition([w.model]),
    conda:
        "../../envs/query.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/elicit.py"


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
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/merge.py"


rule ipd_play:
    input:
        servers=lambda w: served_inputs(pair_models(w.pair)),
    output:
        moves="results/ipd/{experiment}/games/{pair}.parquet",
        stats="results/ipd/{experiment}/games/{pair}.stats.json",
    log:
        "logs/ipd/{experiment}/games/{pair}.log",
    wildcard_constraints:
        pair="[^/+]+[+][^/+]+",
    params:
        conditions=lambda w: ipd_conditions(w.experiment),
        models=lambda w: {m: model_params(m) for m in pair_models(w.pair)},
        templates=lambda w: ipd_templates(w.experiment),
        system_prompt=config["ipd"]["system_prompt"],
        max_reasks=config["ipd"]["max_reasks"],
        runtime=RUNTIME,
    resources:
        embedded_llm=lambda w: max(is_embedded(m) for m in w.pair.split("+")),
        api_calls=lambda w: api_calls(pair_models(w.pair), len(ipd_condition_ids(w.experiment))),
        budget_usd=lambda w: budget_usd(*pair_models(w.pair)),
        slurm_partition=lambda w: served_partition(pair_models(w.pair)),
    conda:
        "../../envs/query.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/play.py"


rule ipd_play_merge:
    input:
        answers=lambda w: ipd_game_files(w.experiment),
        stats=lambda w: ipd_game_files(w.experiment, "stats.json"),
    output:
        answers="results/ipd/{experiment}/moves.parquet",
        stats=report_item("results/ipd/{experiment}/play_query_stats.csv", "ipd/experiment/query_stats"),
    log:
        "logs/ipd/{experiment}/play_merge.log",
    params:
        table="play",
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/merge.py"
