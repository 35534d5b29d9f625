"""Rule ipd_tournament: round robins over the neutral-framing disciplines (Fig. 5A, Figs. S1-S10) and
the strategies of every model across them (Fig. 5B's data)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.tables.tournaments import tournament_document
from workflow_scripts.ipd.analysis.tournaments import disciplines, entrant_methods, left_out, play, propensities, ties
from workflow_scripts.ipd.analysis.posterior import strategy_posteriors
from workflow_scripts.ipd.analysis.tournament_confidence import with_win_probabilities
from workflow_scripts.ipd.analysis.verdict_confidence import Settings
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    strategies = pd.concat([pd.read_csv(path) for path in snakemake.input.strategies], ignore_index=True)
    neutral = list(snakemake.params.neutral)
    found = disciplines(strategies, neutral, float(snakemake.params.w), list(snakemake.params.references))
    summary, standings, matrices, wins = play(found)
    settings = Settings.of(snakemake.params.confidence)
    counts = pd.concat([pd.read_csv(path) for path in snakemake.input.counts], ignore_index=True)
    standings, wins = with_win_probabilities(standings, wins, found, strategy_posteriors(strategies, counts, "memory1"),
                                             settings)
    outputs = {"summary": summary, "standings": standings, "matrices": matrices, "wins": wins,
               "ties": ties(standings), "propensities": propensities(found)}
    for name, frame in outputs.items():
        frame.to_csv(snakemake.output[name], index=False)
    methods = entrant_methods(strategies, summary) if "method" in strategies.columns else None
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(tournament_document(summary, standings, wins, outputs["ties"], left_out(strategies, neutral),
                                         methods, settings))
    log.info("%d disciplines, %d with a tournament", len(summary), standings["discipline"].nunique())
