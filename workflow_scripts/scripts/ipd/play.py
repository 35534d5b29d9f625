"""Rule ipd_play: the games of one pair of models under one condition of actual play (SI §4.6)."""

import json

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.play import longest_prompt, moves_table, play_pair
from workflow_scripts.ipd.query.prompts import templates
from workflow_scripts.llm import Runtime, records
from workflow_scripts.llm.budget import Budget
from workflow_scripts.llm.session import run_with_models
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    params, pair = snakemake.params, snakemake.wildcards.pair
    condition = Condition.from_dict(params.condition)
    texts = templates(params.templates)
    rows, counts = run_with_models(
        params.models, Runtime(**params.runtime), f"ipd/{condition.experiment}/{pair}/{condition.id}",
        lambda models: play_pair(models, pair, condition, params.system_prompt, params.max_reasks, texts),
        planned=2 * condition.rounds * condition.games,
        budget=Budget.from_json(snakemake.resources.budget_usd),
        longest=longest_prompt(condition, params.system_prompt, params.max_reasks, texts),
    )
    records.write_table(moves_table(rows), snakemake.output.moves)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump([{"experiment": condition.experiment, "condition": condition.id, "pair": pair, "model": m, **c}
                   for m, c in counts.items()], handle, indent=1)
    log.info("%s %s: %d moves asked", pair, condition.id, len(rows))
