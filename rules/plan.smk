# The spend plan of both studies (workflow_scripts/plan.py; also `python -m workflow_scripts.plan`):
# per model x experiment / design, what is still missing from the response cache, its tokens and its
# cost, computed without any call. Every query job takes the plan as an ancient() input, so the plan
# is made before the first call and printed; remaking it (any config edit) reruns no query job.
# Needs from rules/common.smk: plan_config(), plan_templates().


localrules: plan


rule plan:
    input:
        templates=plan_templates(),
    output:
        csv=report_item("results/plan.csv", "both/run/plan"),
        table=report_item("results/plan.md", "both/run/plan"),
    log:
        "logs/plan.log",
    params:
        config=plan_config(),
        basedir=workflow.basedir,
    conda:
        "../envs/query.yaml"
    script:
        "../workflow_scripts/scripts/plan.py"
