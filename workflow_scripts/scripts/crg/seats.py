"""Rule crg_seats: one row per seat and game with opt(p), the loss split and the exact split."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.seat_results import seat_results
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    seats = seat_results(pd.read_parquet(snakemake.input.games), pd.read_parquet(snakemake.input.decisions),
                         Rules.from_config(snakemake.params.game))
    seats.to_parquet(snakemake.output[0], index=False)
    log.info("%d seat rows, %d games (%d complete)", len(seats), seats["game_id"].nunique(),
             seats.loc[seats["complete"], "game_id"].nunique())
