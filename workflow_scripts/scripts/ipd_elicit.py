"""Rule ipd_elicit: one model x experiment x condition of the memory-1 elicitation (SI §4.1)."""

import json

from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.memory1 import run_condition
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

with rule_log(snakemake.log[0]) as log:
    condition = Condition(**{**snakemake.params.condition, "payoffs": tuple(snakemake.params.condition["payoffs"])})
    answers, stats = run_condition(snakemake.config, snakemake.wildcards.model, condition)
    answers.to_parquet(snakemake.output.answers, index=False)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1)
    log.info("%s: %d answers, %d provider calls, %d cache hits", condition.id, len(answers), stats["calls"], stats["cache_hits"])
