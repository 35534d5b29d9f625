"""Rule ipd_references: Tables S2 and S3, the memory-1 and memory-2 reference strategies the analyses use."""

from workflow_scripts.gametheory.known import reference_table
from workflow_scripts.ipd.tables.strategies import markdown_section
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
payoffs = tuple(snakemake.params.payoffs)

with rule_log(snakemake.log[0]):
    memory1, memory2 = reference_table("memory1", payoffs), reference_table("memory2", payoffs)
    memory1.to_csv(snakemake.output.memory1, index=False)
    memory2.to_csv(snakemake.output.memory2, index=False)
    caption = (f"Cooperation probabilities (L) of the reference strategies that label inferred strategies "
               f"(workflow_scripts/gametheory/known.py), GTFT for the payoffs {payoffs}; pure = every entry 0 or 1 "
               "(only these enter a Wilson-rule reading).")
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write("# Reference strategies (shape of Tables S2 and S3)\n\n" + "\n".join([
            markdown_section("memory-1 reference strategies (Table S2)", memory1.set_index("name"),
                             caption + " Columns p0; pLL, pLR, pRL, pRR: round 1, then after each outcome (own move first)."),
            markdown_section("memory-2 reference strategies (Table S3)", memory2.set_index("name"),
                             caption + " Memory-1 strategies written as memory-2 (SI §3); pXY_ZW: last round XY, "
                             "the round before ZW."),
        ]))
