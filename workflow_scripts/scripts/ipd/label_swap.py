"""Rule ipd_label_swap: cooperation under the standard labels and each label-swap control (ipd.label_control)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.label_control import comparisons, markdown_tables, summary
from workflow_scripts.ipd.tables.documents import label_swap_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
experiment, alpha = snakemake.wildcards.experiment, float(snakemake.params.alpha)

with rule_log(snakemake.log[0]) as log:
    compared = comparisons(pd.read_csv(snakemake.input.counts), alpha)
    compared.to_csv(snakemake.output.table, index=False)
    document = label_swap_document(experiment, summary(compared), markdown_tables(compared), alpha)
    with open(snakemake.output.markdown, "w", encoding="utf-8") as handle:
        handle.write(document)
    log.info("%d comparisons, %d with a preference", len(compared), int((compared["preference"] != "").sum()))
