"""Rule ipd_tournament: round robins over the neutral-framing disciplines (Fig. 5A, Figs. S1-S10)."""

import pandas as pd

from workflow_scripts.ipd.tables import markdown_document
from workflow_scripts.ipd.tournaments import disciplines, entrant_methods, play
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    strategies = pd.concat([pd.read_csv(path) for path in snakemake.input.strategies], ignore_index=True)
    found = disciplines(strategies, list(snakemake.params.neutral), float(snakemake.params.w), list(snakemake.params.references))
    summary, standings, matrices, wins = play(found)
    for name, frame in (("summary", summary), ("standings", standings), ("matrices", matrices), ("wins", wins)):
        frame.to_csv(snakemake.output[name], index=False)
    tables = {"disciplines": summary.set_index("discipline"), "disciplines won": wins.set_index("strategy")}
    for discipline, part in standings.groupby("discipline", sort=False):
        tables[discipline] = part.drop(columns="discipline").set_index("strategy")
    if "method" in strategies.columns:
        tables["estimation method of each entrant"] = entrant_methods(strategies, summary)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            "Round-robin tournaments of the inferred memory-1 strategies (Fig. 5A, Figs. S1-S10)", tables,
            "`{key}`: exact expected payoffs per round; totals are sums over the pairings with self-play "
            "(type 1) and without (type 2); rank 1 = winner (ties share the rank). Estimation method: how each "
            "model's strategy was estimated (sampled answers, or probabilities from log-probabilities).",
        ))
    log.info("%d disciplines, %d with a tournament", len(summary), standings["discipline"].nunique())
