"""Rule crg_partners: Table 5 (units before / after settlement beside scripted partners)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.partners import table5, table5_wide
from workflow_scripts.crg.tables.documents import CAPTIONS, TITLES, game_fields, markdown, write_markdown
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    table = table5(pd.read_parquet(snakemake.input.seats), list(snakemake.params.models))
    table.to_csv(snakemake.output.csv, index=False)
    write_markdown(snakemake.output.table, markdown(
        TITLES["table5"], CAPTIONS["table5"].format(**game_fields(Rules.from_config(snakemake.params.game))),
        [("model x partner", table5_wide(table).reset_index()), ("every cell", table)]))
    log.info("Table 5: %d rows", len(table))
