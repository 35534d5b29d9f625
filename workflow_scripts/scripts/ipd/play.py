"""Rule ipd_play: the games of one pair of models under every selected condition (treatment) of an
experiment of actual play (SI §4.6); the moves table and one counts entry per condition and model."""

import json

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.play import PlayJob, moves_table
from workflow_scripts.ipd.query.prompts import templates
from workflow_scripts.llm import Budget, condition_slots, records, run_with_models, Runtime
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    params, pair, experiment = snakemake.params, snakemake.wildcards.pair, snakemake.wildcards.experiment
    conditions = tuple(Condition.from_dict(values) for values in params.conditions)
    job = PlayJob(pair, conditions, params.system_prompt, params.max_reasks, templates(params.templates))
    (rows, counts), _ = run_with_models(
        params.models, Runtime.for_job(params.runtime, snakemake.input), f"ipd/{experiment}/{pair}", job.run,
        planned=job.planned(), budget=Budget.from_json(snakemake.resources.budget_usd), longest=job.longest(),
        slots=condition_slots(params.models, snakemake.resources.api_calls, len(conditions)),
    )
    records.write_table(moves_table(rows), snakemake.output.moves)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump(counts.rows(lambda condition: {"experiment": experiment, "condition": condition, "pair": pair}),
                  handle, indent=1)
    log.info("%s: %d conditions, %d moves asked", pair, len(conditions), len(rows))
