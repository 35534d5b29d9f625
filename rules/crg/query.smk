# Collective-risk dilemma (the CRG paper), stage query (workflow_scripts/crg/query/): one play job per
# lineup x design x condition, then a merge. Lineup: a model name, or "a+b" for the two models of a mixed
# table (design 4). A served model's jobs name its server's address as input (on a cluster only: rules/serve.smk).
# Needs the CRG grid (rules/crg/grid.smk: CRG_JOBS, crg_job, CRG_PROMPT_LAYOUT) and from rules/common.smk
# model_params, is_embedded, api_calls, budget_usd, RUNTIME, served_inputs, served_partition.


rule crg_play:
    input:
        servers=lambda w: served_inputs(w.lineup.split("+")),
    output:
        decisions="results/crg/{design}/{lineup}/{condition}/decisions.parquet",
        games="results/crg/{design}/{lineup}/{condition}/games.parquet",
        questions="results/crg/{design}/{lineup}/{condition}/questions.parquet",
        stats="results/crg/{design}/{lineup}/{condition}/stats.json",
    log:
        "logs/crg/{design}/{lineup}/{condition}.log",
    wildcard_constraints:
        design="selfplay|controls|scripted|mixed",
        lineup="[^/]+",
    params:
        job=lambda w: crg_job(w).to_params(),
        templates=lambda w: job_templates(crg_job(w), config, workflow.basedir),
        prompt_layout=CRG_PROMPT_LAYOUT,  # the code's part of every prompt (a change reruns the games)
        models=lambda w: {m: model_params(m, crg_job(w).condition.decoding) for m in crg_job(w).models},
        runtime=RUNTIME,
    resources:
        embedded_llm=lambda w: max(is_embedded(m) for m in w.lineup.split("+")),
        api_calls=lambda w: api_calls(w.lineup.split("+")),
        budget_usd=lambda w: budget_usd(*w.lineup.split("+")),
        slurm_partition=lambda w: served_partition(w.lineup.split("+")),
    conda:
        "../../envs/query.yaml"
    script:
        "../../workflow_scripts/scripts/crg/play.py"


rule crg_merge:
    input:
        decisions=[job.output("decisions") for job in CRG_JOBS],
        games=[job.output("games") for job in CRG_JOBS],
        questions=[job.output("questions") for job in CRG_JOBS],
        stats=[job.output("stats") for job in CRG_JOBS],
    output:
        decisions="results/crg/decisions.parquet",
        games="results/crg/games.parquet",
        questions="results/crg/questions.parquet",
        stats=report_item("results/crg/query_stats.csv", "crg/run/query_stats"),
        invalid=report_item("results/crg/invalid_rates.csv", "crg/run/invalid_rates"),
    log:
        "logs/crg/merge.log",
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/merge.py"
