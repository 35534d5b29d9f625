"""Rule ipd_estimates: counts (S4-S11), Wilson estimates and strategies (S12-S26) of one experiment;
scenarios estimated from log-probabilities enter as probabilities (column ``method``).

Answers of label-swap controls are mapped back to cooperate (L) / defect (R) first (ipd.labels).
Every table gets the condition's parameters (framing, labels, w, x, aLL..aRR) as columns, so the
analyses downstream (classification, tournaments, figures, the label-swap comparison) need nothing else.
Each strategy's readings get their posterior probabilities (ipd.analysis.reading_confidence):
reading_confidence.csv, and p_reading / p_nearest in the strategy table.
With ``use_extracted_answers`` (ipd.analysis) the answers the second reader read count as valid
(workflow_scripts.llm.extraction.with_extracted_answers) in every table; otherwise only the reader's own.
"""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.design.conditions import Condition, condition_table
from workflow_scripts.ipd.analysis.estimates import add_estimates, count_answers, probability_estimates, sampled_answers, strategy_table
from workflow_scripts.ipd.analysis.reading_confidence import reading_table
from workflow_scripts.ipd.design.labels import canonical_actions
from workflow_scripts.llm import records, with_extracted_answers
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment

with rule_log(snakemake.log[0]):
    conditions = [Condition.from_dict(c) for c in snakemake.params.conditions]
    parameters = condition_table(conditions)
    read = pd.read_parquet(snakemake.input.answers)
    counted = with_extracted_answers(read, "action") if snakemake.params.use_extracted_answers else read
    answers = canonical_actions(counted, {c.id: c.labels for c in conditions})
    counts = count_answers(sampled_answers(answers))
    estimates = add_estimates(counts, probabilities=probability_estimates(answers))
    payoffs = {(experiment, c.id): c.payoffs for c in conditions}
    strategies = strategy_table(estimates, payoffs, conditions[0].kind)
    counts.merge(parameters, on="condition", how="left").to_csv(snakemake.output.counts, index=False)
    estimates.merge(parameters, on="condition", how="left").to_csv(snakemake.output.estimates, index=False)
    confidence = snakemake.params.confidence
    readings, strategies = reading_table(strategies.merge(parameters, on="condition", how="left"), counts,
                                         conditions[0].kind, int(confidence["draws"]), int(confidence["seed"]))
    strategies.to_csv(snakemake.output.strategies, index=False)
    readings.to_csv(snakemake.output.readings, index=False)
    records.summarise(read, ["model", "experiment", "condition"]).to_csv(snakemake.output.invalid, index=False)
