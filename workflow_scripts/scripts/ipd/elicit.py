"""Rules ipd_elicit and ipd_logprobs: one model x experiment, every selected condition of a strategy
elicitation (SI §4.1-4.5), or its one log-probability request per scenario for the estimation check;
the answers table and one counts entry per condition."""

import json

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.elicit import ElicitationJob, elicitation_table
from workflow_scripts.ipd.query.prompts import templates
from workflow_scripts.llm import Budget, condition_slots, ModelSpec, records, run_with_models, Runtime
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

with rule_log(snakemake.log[0]) as log:
    params, model, experiment = snakemake.params, snakemake.wildcards.model, snakemake.wildcards.experiment
    conditions = [Condition.from_dict(values) for values in params.conditions]
    job = ElicitationJob.of(conditions, params.system_prompt, params.max_reasks, templates(params.templates),
                            params.sample_on_fallback)
    entries = {model: params.model}
    (rows, counts), _ = run_with_models(
        entries, Runtime.for_job(params.runtime, snakemake.input), f"ipd/{experiment}/{model}",
        lambda models: job.run(model, models),
        planned=job.planned(ModelSpec.from_config(model, params.model).wants_logprobs), longest=job.longest(),
        budget=Budget.from_json(snakemake.resources.budget_usd),
        slots=condition_slots(entries, snakemake.resources.api_calls, len(conditions)),
    )
    records.write_table(elicitation_table(rows), snakemake.output.answers)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump(counts.rows(lambda condition: {"experiment": experiment, "condition": condition}), handle, indent=1)
    log.info("%d conditions: %d questions", len(conditions), len(rows))
