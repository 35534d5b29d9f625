"""Rule ipd_decoding: Table S1, the decoding parameters sent to each model (from the response cache)."""

import pandas as pd

from workflow_scripts.ipd.analysis.decoding import CACHE_KEY_COLUMN, decoding_table, sent_parameters
from workflow_scripts.ipd.tables.strategies import markdown_section
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    columns = ["model", CACHE_KEY_COLUMN]
    answers = pd.concat([pd.read_parquet(p, columns=columns) for p in snakemake.input.answers], ignore_index=True)
    parameters, coverage = sent_parameters(answers, snakemake.params.cache_dir)
    parameters.to_csv(snakemake.output.csv, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write("# Decoding parameters sent to each model (shape of Table S1)\n\n" + markdown_section(
            "parameters", decoding_table(parameters),
            "Every litellm parameter of the requests behind the answers of this run, read from their "
            "response-cache entries (not from the config): one value where every request agrees, else the "
            "number of distinct values and their range (the seed is derived per request). Parameters a server "
            "fills in itself are not sent and not shown; 'not sent' = absent from this model's requests.",
        ) + "\n" + markdown_section(
            "cache entries read", coverage.set_index("model"),
            "Answers of the run, distinct cache entries behind them, entries read, and entries missing or "
            "unreadable (their parameters are not in the table above).",
        ))
    log.info("%d models, %d entries read", len(coverage), int(coverage["entries_read"].sum()) if len(coverage) else 0)
