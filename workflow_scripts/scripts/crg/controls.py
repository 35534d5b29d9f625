"""Rule crg_controls: Table 4 (controls against Base, permutation tests, Bonferroni count)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.controls import table4, table4_wide
from workflow_scripts.crg.tables.documents import CAPTIONS, TITLES, game_fields, markdown, write_markdown
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
params = snakemake.params

with rule_log(snakemake.log[0]) as log:
    rules = Rules.from_config(params.game)
    table, comparisons = table4(
        pd.read_parquet(snakemake.input.seats), list(params.models), dict(params.grid), dict(params.controls),
        params.resamples, params.seed, params.shift_units, params.alpha, params.family_alpha, params.rule, rules)
    table.to_csv(snakemake.output.csv, index=False)
    caption = CAPTIONS["table4"].format(
        rule=params.rule, rule_text=CAPTIONS[f"table4_{params.rule}"].format(**game_fields(rules)), shift_units=params.shift_units, alpha=params.alpha, family_alpha=params.family_alpha,
        comparisons=comparisons, threshold=params.family_alpha / comparisons if comparisons else float("nan"))
    write_markdown(snakemake.output.table, markdown(
        TITLES["table4"], f"{caption}\n\nBonferroni divisor ({params.rule}): **{comparisons}**",
        [("every row: mean (shift from Base)", table4_wide(table).reset_index()), ("every comparison", table)],
    ))
    log.info("Table 4 (%s): %d rows, Bonferroni divisor %d", params.rule, len(table), comparisons)
