"""Rule ipd_decoding: Table S1, the decoding parameters sent to each model (from the response cache)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.decoding import CACHE_KEY_COLUMN, decoding_table, sent_parameters
from workflow_scripts.ipd.tables.documents import decoding_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    columns = ["model", CACHE_KEY_COLUMN]
    answers = pd.concat([pd.read_parquet(p, columns=columns) for p in snakemake.input.answers], ignore_index=True)
    parameters, coverage = sent_parameters(answers, snakemake.params.cache_dir)
    parameters.to_csv(snakemake.output.csv, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(decoding_document(decoding_table(parameters), coverage))
    log.info("%d models, %d entries read", len(coverage), int(coverage["entries_read"].sum()) if len(coverage) else 0)
