"""Rule ipd_seed001_confidence: the IPD paper's five published strategies, their verdicts and probabilities."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

from workflow_scripts.ipd.analysis.seed_confidence import seed_001_table
from workflow_scripts.ipd.analysis.verdict_confidence import Settings
from workflow_scripts.ipd.tables.confidence import seed_001_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    settings = Settings.of(snakemake.params.confidence)
    table = seed_001_table([float(w) for w in snakemake.params.ws], settings)
    table.to_csv(snakemake.output.csv, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(seed_001_document(table, settings))
    log.info("%d rows (model x w)", len(table))
