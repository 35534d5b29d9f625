"""Rule ipd_elicited_vs_played: actual play against the memory-1 strategy elicited with the same
framing and payoffs (the IPD paper's SI §4.6 against §4.1)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.gametheory.known import known_memory1
from workflow_scripts.ipd.analysis.elicited_vs_played import elicited_vs_played
from workflow_scripts.ipd.analysis.likelihood_ratio import TestSettings
from workflow_scripts.ipd.tables.strategies import markdown_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
params = snakemake.params

with rule_log(snakemake.log[0]) as log:
    settings = TestSettings.of(dict(params.test))
    estimates = pd.concat([pd.read_csv(path) for path in snakemake.input.estimates], ignore_index=True)
    matched = {play: tuple(found) for play, found in dict(params.matched).items()}
    summary, states = elicited_vs_played(pd.read_parquet(snakemake.input.moves), estimates, matched,
                                         known_memory1(tuple(params.payoffs)), settings=settings)
    summary.to_csv(snakemake.output.summary, index=False)
    states.to_csv(snakemake.output.states, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{snakemake.wildcards.experiment}: elicited against played memory-1 strategies", {
                "plays as it says? (likelihood-ratio test per model and treatment)": summary.set_index(["model", "condition"]),
                "per state: played share (Wilson) and elicited share": states.set_index(["model", "condition", "state"]),
            },
            "`{key}`. loglik_*: natural-log likelihood of the model's play moves under the elicited strategy, "
            "the maximum-likelihood memory-1 strategy of the play, and the best reference strategy; per_move_*: "
            "geometric mean probability per move. G, df, p_value: two-sample likelihood-ratio test of H0 'the "
            "play's P(L) equals the elicitation's in every state observed in both' (both are samples; test: "
            "one-sample against a probability from log-probabilities); chi-squared with df = the informative "
            "states (a tested state whose pooled moves are all L or all R adds nothing to G and no degree of "
            "freedom); p_bootstrap: parametric bootstrap of G under H0 "
            f"({settings.bootstrap} data sets). detectable: the smallest difference of P(L) in every tested state "
            f"that the test detects with power {settings.power:g} at level {settings.alpha:g} given these counts "
            "(simulated; empty: not even a difference of 1). States never reached in play are listed under "
            "not_observed and not estimated.",
        ))
    log.info("elicited vs played: %d model x treatment rows", len(summary))
