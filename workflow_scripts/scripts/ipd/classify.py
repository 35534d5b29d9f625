"""Rule ipd_classify: Nash / partner / rival of every strategy of one experiment (Tables S27-S31)."""

import pandas as pd

from workflow_scripts.ipd.analysis.strategy_classes import class_tables, classification_table
from workflow_scripts.ipd.tables.strategies import markdown_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment

with rule_log(snakemake.log[0]) as log:
    strategies = pd.read_csv(snakemake.input.strategies)
    ws = [float(w) for w in snakemake.params.ws]
    classified = classification_table(strategies, ws, int(snakemake.params.random_opponents), int(snakemake.params.seed))
    classified.to_csv(snakemake.output.classes, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: Nash equilibria (N), partners (P) and rivals (R) (shape of Tables S27-S31)",
            class_tables(classified, ws),
            "{key}: ✓ = yes, empty = no, n/a = undefined (stage game not a prisoner's dilemma, or no "
            f"estimate). 'beats pi(s,s)': share of {int(snakemake.params.random_opponents)} random memory-1 "
            "opponents that earn more against the strategy than it earns against itself (0% for Nash). "
            "pi(s,s): payoff per round in self-play. Payoff range: the lowest and highest payoff per round "
            "the strategy can receive against any co-player (Fig. 1C). method: how the strategy was estimated "
            "(sampled answers, or probabilities from log-probabilities).",
        ))
    log.info("%d strategies x w classified", len(classified))
