"""Rule ipd_play_analysis: move sequences, cooperation per round, last-round defection (SI §5.6)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.actual_play import cooperation_by_round, last_round, sequence_tables, sequences
from workflow_scripts.ipd.tables.strategies import markdown_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment

with rule_log(snakemake.log[0]):
    moves = pd.read_parquet(snakemake.input.moves)
    games = sequences(moves)
    games.to_csv(snakemake.output.sequences, index=False)
    cooperation_by_round(moves).to_csv(snakemake.output.by_round, index=False)
    last = last_round(games)
    last.to_csv(snakemake.output.last_round, index=False)
    tables = sequence_tables(games)
    tables["who defects in the last round"] = last.set_index(["condition", "model"]).drop(columns=["experiment"])
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: actual play (SI §5.6)", tables,
            "`{key}`: moves of each player in round order (L cooperate, R defect, ? no valid answer); "
            "last-round table: complete games, games with R in the last round, with R only in the last "
            "round, and with an R before it.",
        ))
