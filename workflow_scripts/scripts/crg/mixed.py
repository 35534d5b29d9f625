"""Rule crg_mixed: the data of Figs. 3 and 4 (pair matrix, one seat replaced, game bootstraps)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.game_bootstrap import blockwise, cell_games, game_draws, with_intervals
from workflow_scripts.crg.analysis.mixed import PAIR_KEYS, contributions, pair_matrix, pair_matrix_draws, replacement
from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.analysis.seat_results import SELF_PLAY_DESIGNS, pick
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
params = snakemake.params

with rule_log(snakemake.log[0]) as log:
    seats = pick(pd.read_parquet(snakemake.input.seats), dict(params.base_prompt))
    mixed, selfplay = seats[seats["design"] == "mixed"], seats[seats["design"].isin(SELF_PLAY_DESIGNS)]
    models, seats_per_table = list(params.models), Rules.from_config(params.game).n_seats
    cells = cell_games(seats)
    numbers = game_draws(cells, int(params.draws), derive_seed(params.seed, "pair_matrix"))
    resampled = blockwise(pair_matrix_draws, seats, cells, numbers, models)
    with_intervals(pair_matrix(mixed, selfplay, models), resampled, PAIR_KEYS, ["value"], params.confidence).to_csv(
        snakemake.output.pairs, index=False)
    replacement(mixed, selfplay, models, params.confidence, params.resamples, params.seed, seats_per_table).to_csv(
        snakemake.output.replacement, index=False)
    contributions(mixed, models, params.confidence, params.resamples, params.seed, seats_per_table).to_csv(
        snakemake.output.contributions, index=False)
    log.info("mixed tables: %d games", mixed["game_id"].nunique())
