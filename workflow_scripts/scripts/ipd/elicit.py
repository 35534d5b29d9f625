"""Rules ipd_elicit and ipd_logprobs: one model x experiment x condition of a strategy elicitation
(SI §4.1-4.5), or its one log-probability request per scenario for the estimation check."""

import json

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.elicit import elicit, elicitation_table, longest_prompt, planned_requests, probes
from workflow_scripts.ipd.query.prompts import templates
from workflow_scripts.llm import ModelSpec, Runtime, records
from workflow_scripts.llm.budget import Budget
from workflow_scripts.llm.session import run_with_models
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

with rule_log(snakemake.log[0]) as log:
    params, model = snakemake.params, snakemake.wildcards.model
    condition = Condition.from_dict(params.condition)
    texts = templates(params.templates)
    asked = probes(condition, params.system_prompt, texts)
    rows, counts = run_with_models(
        {model: params.model}, Runtime(**params.runtime), f"ipd/{condition.experiment}/{model}/{condition.id}",
        lambda models: elicit(models[model], condition, asked, params.max_reasks, texts, params.sample_on_fallback),
        planned=planned_requests(condition, asked, ModelSpec.from_config(model, params.model).wants_logprobs),
        longest=longest_prompt(condition, asked, params.max_reasks, texts),
        budget=Budget.from_json(snakemake.resources.budget_usd),
    )
    records.write_table(elicitation_table(rows), snakemake.output.answers)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump([{"experiment": condition.experiment, "condition": condition.id, "model": model, **counts[model]}],
                  handle, indent=1)
    log.info("%s: %d questions", condition.id, len(rows))
