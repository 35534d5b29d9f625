"""Rule crg_merge: every CRG job's tables in one parquet file per kind, plus the query counts."""

import json

import pandas as pd

from workflow_scripts.crg.records import SCHEMAS, merge
from workflow_scripts.llm import records
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    for kind in SCHEMAS:
        table = merge(kind, snakemake.input[kind])
        records.write_table(table, snakemake.output[kind])
        log.info("%s: %d rows from %d jobs", kind, table.num_rows, len(snakemake.input[kind]))
    stats = pd.DataFrame([row for path in snakemake.input.stats for row in json.load(open(path, encoding="utf-8"))])
    stats.to_csv(snakemake.output.stats, index=False)
