# Collective-risk dilemma (seed 000): one play job per lineup x design x condition, then a merge.
# The analyses and the study's target rule crg_all are in rules/crg_analysis.smk.
# Lineup: a model name, or "a+b" for the two models of a mixed table (design 4).
# Needs from rules/common.smk: config (validated), SELECTED_MODELS, ONLY_CONDITIONS, PARTIAL_RUN,
# is_embedded(model), api_calls(models).
from workflow_scripts.crg.design.jobs import find_job, job_templates, plan_jobs, planned_jobs  # noqa: E402

CRG_JOBS = planned_jobs(config, SELECTED_MODELS, ONLY_CONDITIONS)
CRG_TABLES = ["decisions", "games", "questions"]


def crg_job(wildcards):
    """The planned CRG job of a crg_play job's wildcards."""
    return find_job(config, SELECTED_MODELS, wildcards.design, wildcards.lineup, wildcards.condition)


rule crg_play:
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
        models=lambda w: {m: model_params(m, crg_job(w).condition.decoding) for m in crg_job(w).models},
        runtime=RUNTIME,
    resources:
        embedded_llm=lambda w: max(is_embedded(m) for m in w.lineup.split("+")),
        api_calls=lambda w: api_calls(w.lineup.split("+")),
        budget_usd=lambda w: budget_usd(*w.lineup.split("+")),
    conda:
        "../envs/query.yaml"
    script:
        "../workflow_scripts/scripts/crg/play.py"


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
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/merge.py"

