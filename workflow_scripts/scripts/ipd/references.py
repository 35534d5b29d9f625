"""Rule ipd_references: Tables S2 and S3, the memory-1 and memory-2 reference strategies the analyses use."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

from workflow_scripts.gametheory.known import reference_table
from workflow_scripts.ipd.tables.documents import reference_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
payoffs = tuple(snakemake.params.payoffs)

with rule_log(snakemake.log[0]):
    memory1, memory2 = reference_table("memory1", payoffs), reference_table("memory2", payoffs)
    memory1.to_csv(snakemake.output.memory1, index=False)
    memory2.to_csv(snakemake.output.memory2, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(reference_document(memory1, memory2, payoffs))
