"""Rule ipd_play: the games of one pair of models under one condition of actual play (SI §4.6)."""

import json

from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.play import run_pair
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    condition = Condition.from_dict(snakemake.params.condition)
    moves, stats = run_pair(snakemake.config, snakemake.wildcards.pair, condition)
    moves.to_parquet(snakemake.output.moves, index=False)
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1)
    log.info("%s %s: %d answers, %d provider calls, %d cache hits", snakemake.wildcards.pair, condition.id,
             len(moves), sum(s["calls"] for s in stats), sum(s["cache_hits"] for s in stats))
