"""Rule ipd_label_swap: cooperation under the standard labels and each label-swap control (ipd.label_control)."""

import pandas as pd

from workflow_scripts.ipd.analysis.label_control import comparisons, markdown_tables, summary
from workflow_scripts.ipd.design.labels import MEANING
from workflow_scripts.ipd.tables.strategies import markdown_section
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment, alpha = snakemake.wildcards.experiment, float(snakemake.params.alpha)

with rule_log(snakemake.log[0]) as log:
    compared = comparisons(pd.read_csv(snakemake.input.counts), alpha)
    compared.to_csv(snakemake.output.table, index=False)
    overview = summary(compared)
    parts = [f"# {experiment}: label-swap control (answers by meaning or by letter?)\n", markdown_section(
        "summary", overview.set_index(["model", "condition", "labels"]),
        f"Scenarios compared and scenarios with a significant difference (two-sided Fisher exact test, p < {alpha:g}, "
        "no multiplicity correction). Labellings: " + "; ".join(f"{k}: {v}" for k, v in MEANING.items()) + ".",
    )]
    for key, table in markdown_tables(compared).items():
        parts.append(markdown_section(key, table, (
            f"`{key}`: share of valid answers that cooperate (answers mapped back to their meaning) under the "
            "standard labels and under the control; difference control - standard with its 95% Newcombe "
            f"(hybrid Wilson score) interval; Fisher's exact test; a preference is named where p < {alpha:g}.")))
    with open(snakemake.output.markdown, "w", encoding="utf-8") as handle:
        handle.write("\n".join(parts))
    log.info("%d comparisons, %d with a preference", len(compared), int((compared["preference"] != "").sum()))
