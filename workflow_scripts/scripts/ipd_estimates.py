"""Rule ipd_estimates: counts (S4-S8), Wilson estimates and memory-1 strategies (S12-S21)."""

import pandas as pd

from workflow_scripts.ipd.estimates import add_estimates, count_answers, strategy_table
from workflow_scripts.ipd.tables import invalid_rates
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    answers = pd.read_parquet(snakemake.input.answers)
    counts = count_answers(answers)
    estimates = add_estimates(counts)
    payoffs = {(snakemake.wildcards.experiment, c): tuple(p) for c, p in snakemake.params.payoffs.items()}
    counts.to_csv(snakemake.output.counts, index=False)
    estimates.to_csv(snakemake.output.estimates, index=False)
    strategy_table(estimates, payoffs).to_csv(snakemake.output.strategies, index=False)
    invalid_rates(counts).to_csv(snakemake.output.invalid, index=False)
