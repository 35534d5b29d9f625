"""Rule ipd_estimation_check: P(L) from log-probabilities beside the sampled share and its Wilson
interval, for every memory-1 scenario and condition of one experiment (CSV, Markdown, PNG + PDF).
Probabilities of label-swap controls are mapped back to cooperate (L) / defect (R) first (ipd.labels)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.estimation_check import check_summary, check_tables, estimation_check
from workflow_scripts.ipd.design.labels import canonical_actions
from workflow_scripts.ipd.tables.strategies import markdown_document, markdown_section
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment = snakemake.wildcards.experiment

with rule_log(snakemake.log[0]) as log:
    logprobs = canonical_actions(pd.read_parquet(snakemake.input.logprobs), dict(snakemake.params.labels))
    check = estimation_check(pd.read_csv(snakemake.input.estimates), logprobs)
    check.to_csv(snakemake.output.csv, index=False)
    summary = check_summary(check)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            f"{experiment}: the probability method beside sampled answers", check_tables(check),
            "`{key}`: per scenario, the number of L among the valid sampled answers, their share and its 95% "
            "Wilson interval (the elicitation's estimate), and P(L) at the same temperature from one request's "
            "log-probabilities (workflow_scripts/llm/estimation/logprobs.py); ✓ = the probability lies inside the interval. "
            "fallback: why no probability could be derived.",
        ))
        handle.write("\n" + markdown_section(
            "scenarios inside their interval", summary.set_index("model"),
            "If the probability is the sampled answers' true P(L), about 95% of the scenarios lie inside "
            "their 95% Wilson interval.",
        ))
    for row in summary.itertuples():
        log.info("%s: %d of %d scenarios inside their interval", row.model, row.inside, row.compared)
