"""Rule crg_selfplay: Table 3 and the data of Fig. 2 (self-play over the risk grid)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.game_bootstrap import bootstrap, with_intervals
from workflow_scripts.crg.analysis.seat_results import pick
from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.analysis.selfplay import TABLE3_INTERVAL_COLUMNS, action_shares, contribution_grid, loss_shares, table3
from workflow_scripts.crg.tables.documents import CAPTIONS, TITLES, game_fields, markdown, write_markdown
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    grid = pick(pd.read_parquet(snakemake.input.seats), dict(snakemake.params.grid))
    models = list(snakemake.params.models)
    rules = Rules.from_config(snakemake.params.game)
    draws = int(snakemake.params.draws)
    resampled = bootstrap(grid, lambda s: table3(s, models, rules), draws, derive_seed(snakemake.params.seed, "table3"))
    table = with_intervals(table3(grid, models, rules), resampled, ["model"], TABLE3_INTERVAL_COLUMNS,
                           snakemake.params.confidence)
    table.to_csv(snakemake.output.csv, index=False)
    caption = CAPTIONS["table3"].format(**game_fields(rules)) + CAPTIONS["game_bootstrap"].format(draws=draws, level=snakemake.params.confidence)
    write_markdown(snakemake.output.table, markdown(TITLES["table3"], caption, [("per model", table)]))
    contribution_grid(grid, models, rules).to_csv(snakemake.output.grid, index=False)
    action_shares(pd.read_parquet(snakemake.input.decisions), grid, rules).to_csv(snakemake.output.actions, index=False)
    loss_shares(grid, models).to_csv(snakemake.output.losses, index=False)
    log.info("Table 3: %d models, %d grid games", len(table), grid["game_id"].nunique())
