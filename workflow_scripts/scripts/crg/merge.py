"""Rule crg_merge: every CRG job's tables in one parquet file per kind, the query counts, and the
invalid rates of the model seats' decisions and value questions (the one summary of the LLM layer)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.query.rows import SCHEMAS, merge
from workflow_scripts.llm import read_counts, records
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    merged = {kind: merge(kind, snakemake.input[kind]) for kind in SCHEMAS}
    for kind, table in merged.items():
        records.write_table(table, snakemake.output[kind])
        log.info("%s: %d rows from %d jobs", kind, table.num_rows, len(snakemake.input[kind]))
    asked = pd.concat([merged[k].to_pandas().assign(table=k) for k in ("decisions", "questions")], ignore_index=True)
    records.summarise(asked, ["model", "design", "condition", "table"]).to_csv(snakemake.output.invalid, index=False)
    stats = read_counts(snakemake.input.stats)
    stats.to_csv(snakemake.output.stats, index=False)
