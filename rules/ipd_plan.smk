# The number of calls per model and experiment of the prisoner's-dilemma study (no call is made).
# Also from the command line: python -m workflow_scripts.ipd.plan [--configfile config/paper_ipd.yaml]
# Needs from rules/common.smk: IPD_MODELS.


localrules: ipd_plan


rule ipd_plan:
    output:
        csv=report_item("results/ipd/plan.csv", "ipd/study/plan"),
        table=report_item("results/ipd/plan.md", "ipd/study/plan"),
    log:
        "logs/ipd/plan.log",
    params:
        models=IPD_MODELS,
        ipd=config["ipd"],
        entries={m: model_params(m) for m in IPD_MODELS},
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd_plan.py"
