"""Rule crg_selection: payoff table, fixation probabilities, stationary distributions (Fig. 5, S7)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.crg.analysis.game_bootstrap import blockwise, cell_games, game_draws, top_probabilities, with_intervals
from workflow_scripts.crg.analysis.seat_results import pick
from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.analysis.selection import (
    payoff_table, risks_without_games, stationary_draws, target_rates, weighted_target_rates,
)
from workflow_scripts.crg.tables.documents import CAPTIONS, TITLES, game_fields, markdown, write_markdown
from workflow_scripts.evolution.payoff_tables import check_payoff_table, select_by_risk
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
params = snakemake.params
out = snakemake.output

with rule_log(snakemake.log[0]) as log:
    seats = pick(pd.read_parquet(snakemake.input.seats), dict(params.base_prompt))
    rules = Rules.from_config(params.game)
    models, group = list(params.models), rules.n_seats
    payoffs = payoff_table(seats, models, group)
    payoffs.to_csv(out.payoffs, index=False)
    fixation, stationary, skipped = select_by_risk(
        check_payoff_table(payoffs, group), models, list(params.population_sizes), group, params.beta)
    unplayed = risks_without_games(seats, payoffs, list(params.population_sizes))
    skipped = pd.concat([skipped, unplayed], ignore_index=True) if len(unplayed) else skipped

    cells = cell_games(seats)
    numbers = game_draws(cells, int(params.draws), derive_seed(params.seed, "selection"))
    draws = blockwise(stationary_draws, seats, cells, numbers, models, list(params.population_sizes), group, params.beta)
    keys = ["population", "p", "model"]
    stationary = with_intervals(stationary, draws, keys, ["mass"], params.confidence).merge(
        top_probabilities(draws, keys[:2], "model", "mass", count=len(numbers)), on=keys, how="left")
    weighted = weighted_target_rates(stationary, target_rates(seats))
    for frame, path in ((fixation, out.fixation), (stationary, out.stationary), (weighted, out.weighted),
                        (skipped, out.skipped)):
        frame.to_csv(path, index=False)
    caption = CAPTIONS["selection"].format(beta=params.beta, **game_fields(rules)) + CAPTIONS["game_bootstrap"].format(
        draws=int(params.draws), level=params.confidence) + CAPTIONS["selection_top"]
    write_markdown(out.table, markdown(TITLES["selection"], caption, [("stationary distribution", stationary), ("self-play target rate weighted by mass", weighted),
                            ("fixation probabilities", fixation), ("skipped (population, risk, reason)", skipped)]))
    for row in skipped.itertuples():
        log.warning("selection skipped N = %d, p = %g: %s", row.population, row.p, row.reason)
    log.info("selection: %d cases, %d skipped", len(weighted), len(skipped))
