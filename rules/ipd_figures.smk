# Figures of the prisoner's-dilemma study beyond Fig. 1B (rules/ipd_report.smk): Fig. 2A/B (entries
# against w and x), Fig. 3 (memory-2), Fig. 4 (framings), actual play, Fig. 5A/B (tournaments, propensities).
# Every figure is written as PNG and PDF.


rule ipd_figure_estimates:
    input:
        estimates="results/ipd/{experiment}/estimates.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/{figure}.png", "ipd/experiment/estimate_figures"),
        pdf="results/ipd/{experiment}/figures/{figure}.pdf",
    log:
        "logs/ipd/{experiment}/figure_{figure}.log",
    wildcard_constraints:
        figure="parameters|framings|memory2",
    params:
        groups=config["ipd"].get("framing_groups", {}),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/figures.py"


rule ipd_figure_play:
    input:
        by_round="results/ipd/{experiment}/cooperation_by_round.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/play.png", "ipd/experiment/play_figure"),
        pdf="results/ipd/{experiment}/figures/play.pdf",
    log:
        "logs/ipd/{experiment}/figure_play.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/figures.py"


rule ipd_figure_tournament:
    input:
        summary="results/ipd/tournaments/summary.csv",
        standings="results/ipd/tournaments/standings.csv",
        wins="results/ipd/tournaments/wins.csv",
        propensities="results/ipd/tournaments/propensities.csv",
    output:
        wins_png=report_item("results/ipd/tournaments/figures/wins.png", "ipd/tournaments/wins_figure"),
        wins_pdf="results/ipd/tournaments/figures/wins.pdf",
        totals_png=report_item("results/ipd/tournaments/figures/totals.png", "ipd/tournaments/totals_figure"),
        totals_pdf="results/ipd/tournaments/figures/totals.pdf",
        propensities_png=report_item("results/ipd/tournaments/figures/propensities.png", "ipd/tournaments/propensities_figure"),
        propensities_pdf="results/ipd/tournaments/figures/propensities.pdf",
    log:
        "logs/ipd/tournaments_figures.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/ipd/figures.py"
