# The spend plan of both studies (workflow_scripts/tools/plan.py; also `python -m workflow_scripts.tools.plan`):
# per model x experiment / design, what is still missing from the response cache, its tokens and its
# cost, computed without any call. It is the run's first job (highest priority; a local rule) and
# prints its summary line. Query jobs do not take it as an input: Snakemake skips the rerun triggers
# (params, code) of every job downstream of a job that reruns, and any config edit reruns the plan.
# Needs from rules/common.smk: plan_config(), plan_templates().


localrules: plan


rule plan:
    priority: 1000
    input:
        templates=plan_templates(),
    output:
        csv=report_item("results/plan.csv", "all/run/plan"),
        table=report_item("results/plan.md", "all/run/plan"),
    log:
        "logs/plan.log",
    params:
        config=plan_config(),
        basedir=workflow.basedir,
    conda:
        "../envs/query.yaml"
    script:
        "../workflow_scripts/scripts/plan.py"
