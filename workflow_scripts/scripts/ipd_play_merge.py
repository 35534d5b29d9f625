"""Rule ipd_play_merge: all answers of a play experiment in one parquet file, plus the query counts."""

import json

import pandas as pd

from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    moves = pd.concat([pd.read_parquet(path) for path in snakemake.input.moves], ignore_index=True)
    moves.to_parquet(snakemake.output.moves, index=False)
    stats = pd.DataFrame([row for path in snakemake.input.stats for row in json.load(open(path, encoding="utf-8"))])
    stats.to_csv(snakemake.output.stats, index=False)
    log.info("%d answers; provider calls this run: %d", len(moves), int(stats["calls"].sum()))
