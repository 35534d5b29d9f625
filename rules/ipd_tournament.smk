# Round-robin tournaments over the neutral-framing memory-1 disciplines (seed 001, Fig. 5A, Figs. S1-S10)
# and the strategies of every model across those disciplines (Fig. 5B's data).
# Needs from rules/common.smk: IPD_ANALYSIS, ipd_experiments_of.


rule ipd_tournament:
    input:
        strategies=lambda w: [f"results/ipd/{e}/strategies.csv" for e in ipd_experiments_of("memory1")],
    output:
        summary=report_item("results/ipd/tournaments/summary.csv", "ipd/tournaments/summary"),
        standings=report_item("results/ipd/tournaments/standings.csv", "ipd/tournaments/standings"),
        matrices=report_item("results/ipd/tournaments/matrices.csv", "ipd/tournaments/matrices"),
        wins=report_item("results/ipd/tournaments/wins.csv", "ipd/tournaments/wins"),
        ties=report_item("results/ipd/tournaments/ties.csv", "ipd/tournaments/ties"),
        propensities=report_item("results/ipd/tournaments/propensities.csv", "ipd/tournaments/propensities"),
        table=report_item("results/ipd/tournaments/tables/tournaments.md", "ipd/tournaments/tournaments"),
    log:
        "logs/ipd/tournaments.log",
    params:
        neutral=config["ipd"].get("framing_groups", {}).get("neutral", ["none"]),
        w=IPD_ANALYSIS["tournament_w"],
        references=IPD_ANALYSIS["tournament_references"],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/tournament.py"
