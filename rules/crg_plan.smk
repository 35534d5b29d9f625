# The number of calls per model and design of the collective-risk study (no call is made).
# Also from the command line: python -m workflow_scripts.crg.plan [--configfile config/paper_crg.yaml]
# Needs from rules/crg.smk: CRG_JOBS.


localrules: crg_plan


rule crg_plan:
    output:
        csv=report_item("results/crg/plan.csv", "crg/run/plan"),
        table=report_item("results/crg/plan.md", "crg/run/plan"),
    log:
        "logs/crg/plan.log",
    params:
        jobs=[job.to_params() for job in CRG_JOBS],
        models=list(config["models"]),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg_plan.py"
