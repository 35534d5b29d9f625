# Actual play of the prisoner's-dilemma study (seed 001, SI §4.6, §5.6): one job per pair of models
# x condition, then a merge per experiment and the analysis of the games.
# Needs from rules/common.smk: ipd_condition, ipd_game_files, is_embedded, api_calls.


rule ipd_play:
    output:
        moves="results/ipd/{experiment}/games/{pair}/{condition}.parquet",
        stats="results/ipd/{experiment}/games/{pair}/{condition}.stats.json",
    log:
        "logs/ipd/{experiment}/games/{pair}/{condition}.log",
    wildcard_constraints:
        pair="[^/+]+[+][^/+]+",
    params:
        condition=lambda w: ipd_condition(w.experiment, w.condition),
        models=lambda w: {m: model_params(m) for m in pair_models(w.pair)},
        templates=lambda w: ipd_templates(w.experiment),
        system_prompt=config["ipd"]["system_prompt"],
        max_reasks=config["ipd"]["max_reasks"],
        runtime=RUNTIME,
    resources:
        embedded_llm=lambda w: max(is_embedded(m) for m in w.pair.split("+")),
        api_calls=lambda w: api_calls(w.pair.split("+")),
        budget_usd=lambda w: budget_usd(*pair_models(w.pair)),
    conda:
        "../envs/query.yaml"
    script:
        "../workflow_scripts/scripts/ipd/play.py"


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
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/merge.py"


rule ipd_play_analysis:
    input:
        moves="results/ipd/{experiment}/moves.parquet",
    output:
        sequences=report_item("results/ipd/{experiment}/sequences.csv", "ipd/experiment/play_sequences"),
        by_round=report_item("results/ipd/{experiment}/cooperation_by_round.csv", "ipd/experiment/play_by_round"),
        last_round=report_item("results/ipd/{experiment}/last_round.csv", "ipd/experiment/play_last_round"),
        table=report_item("results/ipd/{experiment}/tables/play.md", "ipd/experiment/play"),
    log:
        "logs/ipd/{experiment}/play_analysis.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/play_analysis.py"
