"""Rule ipd_merge: all answers of one experiment in one parquet file, plus the query counts."""

import json

import pandas as pd

from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    answers = pd.concat([pd.read_parquet(path) for path in snakemake.input.answers], ignore_index=True)
    answers.to_parquet(snakemake.output.answers, index=False)
    stats = pd.DataFrame([json.load(open(path, encoding="utf-8")) for path in snakemake.input.stats])
    stats.to_csv(snakemake.output.stats, index=False)
    log.info("%d answers; provider calls this run: %d", len(answers), int(stats["calls"].sum()))
