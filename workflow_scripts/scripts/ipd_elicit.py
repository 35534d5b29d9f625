"""Rule ipd_elicit: one model x experiment x condition of a strategy elicitation (SI §4.1-4.5)."""

import json

from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.elicit import run_condition
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

with rule_log(snakemake.log[0]) as log:
    condition = Condition.from_dict(snakemake.params.condition)
    answers, stats = run_condition(snakemake.config, snakemake.wildcards.model, condition)
    answers.to_parquet(snakemake.output.answers, index=False)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1)
    log.info("%s: %d answers, %d provider calls, %d cache hits", condition.id, len(answers), stats["calls"], stats["cache_hits"])
