"""Rule plan: the spend plan of both studies, before any call (workflow_scripts/tools/plan.py)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

from workflow_scripts.tools.plan import call_plan, markdown, summary, with_totals
from workflow_scripts.scripts.logs import rule_log, tell

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    plan = with_totals(call_plan(snakemake.params.config, snakemake.params.basedir))
    extraction = snakemake.params.config.get("answer_extraction")
    plan.to_csv(snakemake.output.csv, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown(plan, extraction))
    log.info("%s", summary(plan, extraction))
    tell(f"{summary(plan, extraction)} (table: {snakemake.output.table})")
