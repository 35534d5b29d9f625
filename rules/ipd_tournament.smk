# Round-robin tournaments over the neutral-framing memory-1 disciplines (seed 001, Fig. 5A, Figs. S1-S10)
# and the strategies of every model across those disciplines (Fig. 5B's data).
# Needs from rules/common.smk: IPD_ANALYSIS, ipd_experiments_of.


rule ipd_tournament:
    input:
        strategies=lambda w: [f"results/ipd/{e}/strategies.csv" for e in ipd_experiments_of("memory1")],
    output:
        summary="results/ipd/tournaments/summary.csv",
        standings="results/ipd/tournaments/standings.csv",
        matrices="results/ipd/tournaments/matrices.csv",
        wins="results/ipd/tournaments/wins.csv",
        ties="results/ipd/tournaments/ties.csv",
        propensities="results/ipd/tournaments/propensities.csv",
        table=report("results/ipd/tournaments/tables/tournaments.md", category="IPD"),
    log:
        "logs/ipd/tournaments.log",
    params:
        neutral=config["ipd"].get("framing_groups", {}).get("neutral", ["none"]),
        w=IPD_ANALYSIS["tournament_w"],
        references=IPD_ANALYSIS["tournament_references"],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd_tournament.py"
