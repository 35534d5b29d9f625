"""Rule crg_plan: calls per model and design of the collective-risk study (no call is made)."""

from workflow_scripts.crg.designs import Job
from workflow_scripts.crg.plan import plan_rows
from workflow_scripts.crg.tables import markdown, write_markdown
from workflow_scripts.ipd.plan import with_totals
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    jobs = [Job.from_params(params) for params in snakemake.params.jobs]
    plan = with_totals(plan_rows(jobs, list(snakemake.params.models)))
    plan.to_csv(snakemake.output.csv, index=False)
    write_markdown(snakemake.output.table, markdown(
        "Planned collective-risk calls per model and design",
        "calls: answers asked without re-asks (10 rounds per LLM seat and game, plus value questions); "
        "max_calls: with every allowed re-ask. Cached answers are not asked again.", [("plan", plan)]))
    log.info("planned calls: %d", int(plan.loc[plan["model"] == "all models", "calls"].iloc[0]))
