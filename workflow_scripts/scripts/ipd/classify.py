"""Rule ipd_classify: Nash / partner / rival of every strategy of one experiment (Tables S27-S31)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.posterior import strategy_posteriors
from workflow_scripts.ipd.analysis.strategy_classes import class_tables, classification_table, with_confidence
from workflow_scripts.ipd.analysis.verdict_confidence import Settings, confidence_table
from workflow_scripts.ipd.design.scenarios import kind_of_columns
from workflow_scripts.ipd.tables.strategies import markdown_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment

with rule_log(snakemake.log[0]) as log:
    strategies = pd.read_csv(snakemake.input.strategies)
    ws = [float(w) for w in snakemake.params.ws]
    classified = classification_table(strategies, ws, int(snakemake.params.random_opponents), int(snakemake.params.seed))
    settings = Settings.of(snakemake.params.confidence)
    posteriors = strategy_posteriors(strategies, pd.read_csv(snakemake.input.counts), kind_of_columns(strategies.columns))
    confidence = confidence_table(posteriors, strategies, ws, settings)
    confidence.to_csv(snakemake.output.confidence, index=False)
    classified = with_confidence(classified, confidence)
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
            "(sampled answers, or probabilities from log-probabilities). "
            f"P(N≤ε), P(P≤ε), P(R≤ε): posterior probability (Jeffreys Beta(1/2, 1/2) per sampled scenario, "
            f"{settings.draws} draws, {settings.memory2_draws} for memory-2, seed {settings.seed}) that the Nash gap, the partner's Nash gap and shortfall, "
            f"the rival gap are at most ε = {settings.epsilon:g} payoff units per round; Monte Carlo error at most "
            f"{0.5 / min(settings.draws, settings.memory2_draws) ** 0.5:.3f}. Nash gap = max_s' pi(s',s) - pi(s,s), shortfall = aLL - pi(s,s), "
            f"rival gap = max_s' [pi(s',s) - pi(s,s')], at the estimate with the {settings.level:.0%} central "
            "posterior interval in brackets; 'exact' = estimated from log-probabilities, no sampling error "
            "(no interval). An exact verdict (ε = 0) that rests on an equality has probability 0 under a "
            "continuous posterior: read the margins.",
        ))
    log.info("%d strategies x w classified", len(classified))
