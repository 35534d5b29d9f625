"""Rule ipd_tables: Markdown versions of Tables S4-S8 and S12-S21 for one experiment."""

import pandas as pd

from workflow_scripts.ipd.tables import counts_tables, markdown_document, strategy_tables
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment

with rule_log(snakemake.log[0]):
    counts = pd.read_csv(snakemake.input.counts)
    strategies = pd.read_csv(snakemake.input.strategies, keep_default_na=False, na_values=[""])
    strategies["closest"] = strategies["closest"].fillna("")
    with open(snakemake.output.counts, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: number of L per scenario (shape of Tables S4-S8)", counts_tables(counts),
            "Number of times each model chose L in the {key} scenario, out of its valid answers.",
        ))
    with open(snakemake.output.strategies, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: memory-1 strategies (shape of Tables S12-S21)", strategy_tables(strategies),
            "Framing `{key}`: frequency of L in bold, 95% Wilson interval in brackets; "
            "closest well-known memory-1 strategy, '~' when approximate.",
        ))
