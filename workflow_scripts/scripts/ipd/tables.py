"""Rule ipd_tables: Markdown versions of Tables S4-S11 (counts) and S12-S26 (strategies) of one experiment."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.reading import RULE_TEXT
from workflow_scripts.ipd.design.scenarios import kind_of_columns
from workflow_scripts.ipd.tables.strategies import counts_tables, markdown_document, markdown_section, reading_summary, strategy_tables
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment
MEMORY2_NOTE = (
    " Memory-2 layout of Tables S11/S25: 'rounds 1-2' holds round 1 (p0) and round two after each "
    "outcome of round 1; 'previous round XY' holds later rounds whose previous round was XY, one "
    "column per outcome two rounds ago (R-2)."
)

with rule_log(snakemake.log[0]):
    counts = pd.read_csv(snakemake.input.counts)
    strategies = pd.read_csv(snakemake.input.strategies, keep_default_na=False, na_values=[""])
    strategies[["reading", "pattern", "nearest"]] = strategies[["reading", "pattern", "nearest"]].fillna("")
    note = MEMORY2_NOTE if kind_of_columns(strategies.columns) == "memory2" else ""
    tables = counts_tables(counts)
    with open(snakemake.output.counts, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: number of L per scenario (shape of Tables S4-S11)", tables,
            "`{key}`: number of times each model chose L, out of its valid answers, and in brackets the answers "
            "that were no move (invalid, empty, truncated, refused or failed; sampled answers only; "
            "scenarios estimated from log-probabilities are in the strategy tables)." + note,
        ))
        if not tables:
            handle.write(f"\nNo answer of {experiment} was sampled: every model estimated its scenarios from "
                         "log-probabilities (ipd.experiments.<e>.estimation, models.<m>.estimation); their "
                         "probabilities are in the strategy tables (tables/strategies.md).\n")
    with open(snakemake.output.strategies, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: inferred strategies (shape of Tables S12-S26)", strategy_tables(strategies),
            "`{key}`: frequency of L in bold, 95% Wilson interval in brackets, or the probability of L "
            "from log-probabilities marked '(probability)' (no binomial interval). " + RULE_TEXT +
            " method: how the strategy's entries were estimated." + note,
        ))
        handle.write("\n" + markdown_section(
            "readings of the strategies (shape of Table S22)", reading_summary(strategies),
            "The reading of every table above, condition x model. " + RULE_TEXT,
        ))
