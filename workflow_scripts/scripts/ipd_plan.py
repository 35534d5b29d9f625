"""Rule ipd_plan: calls per model and experiment of the prisoner's-dilemma study (no call is made)."""

from workflow_scripts.ipd.plan import call_plan, with_totals
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    params = snakemake.params
    plan = with_totals(call_plan({"ipd": params.ipd, "models": dict(params.entries)}, list(params.models)))
    plan.to_csv(snakemake.output.csv, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write("# Planned calls per model and experiment\n\n"
                     "calls: provider calls without re-asks (estimation: sample = one answer per call, sample n=k = "
                     "k answers per call, logprobs = one call per scenario); max_calls: with every allowed re-ask "
                     "and fallback. "
                     "Cached answers are not asked again.\n\n" + plan.to_markdown(index=False) + "\n")
    log.info("planned calls: %d", int(plan.loc[plan["model"] == "all models", "calls"].iloc[0]))
