# Prisoner's-dilemma study, stage figures (workflow_scripts/ipd/figures/): Fig. 1B (cooperation per scenario),
# Fig. 1C (payoff range), Fig. 2A/B (entries against w and x), Fig. 3 (memory-2), Fig. 4 (framings), actual
# play, Fig. 5A/B (tournaments, propensities), the estimation check. Every figure is written as PNG and PDF, in
# the style of workflow_scripts/figure_style.py; params.models (the run's models, config order) fixes each
# model's colour in every figure. And the study's target rule ipd_all (ipd_targets, rules/ipd/grid.smk).


rule ipd_figure:
    input:
        estimates="results/ipd/{experiment}/estimates.csv",
    output:
        report_item("results/ipd/{experiment}/figures/cooperation.png", "ipd/experiment/cooperation"),
        "results/ipd/{experiment}/figures/cooperation.pdf",
    log:
        "logs/ipd/{experiment}/figure.log",
    params:
        models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure.py"


rule ipd_figure_payoff_range:
    input:
        classes="results/ipd/{experiment}/classification.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/payoff_range.png", "ipd/experiment/payoff_range"),
        pdf="results/ipd/{experiment}/figures/payoff_range.pdf",
    log:
        "logs/ipd/{experiment}/figure_payoff_range.log",
    params:
        models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure_payoff_range.py"


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
        groups=config["ipd"]["framing_groups"],
        models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure_estimates.py"


rule ipd_figure_play:
    input:
        by_round="results/ipd/{experiment}/cooperation_by_round.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/play.png", "ipd/experiment/play_figure"),
        pdf="results/ipd/{experiment}/figures/play.pdf",
    log:
        "logs/ipd/{experiment}/figure_play.log",
    params:
        models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure_play.py"


rule ipd_figure_elicited_vs_played:
    input:
        summary="results/ipd/{experiment}/elicited_vs_played.csv",
        states="results/ipd/{experiment}/elicited_vs_played_states.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/elicited_vs_played.png",
                        "ipd/experiment/elicited_vs_played_figure"),
        pdf="results/ipd/{experiment}/figures/elicited_vs_played.pdf",
    log:
        "logs/ipd/{experiment}/figure_elicited_vs_played.log",
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure_elicited_vs_played.py"


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
    params:
        models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure_tournament.py"


rule ipd_figure_estimation_check:
    input:
        check="results/ipd/{experiment}/estimation_check.csv",
    output:
        png=report_item("results/ipd/{experiment}/figures/estimation_check.png", "ipd/experiment/estimation_check_figure"),
        pdf="results/ipd/{experiment}/figures/estimation_check.pdf",
    log:
        "logs/ipd/{experiment}/figure_estimation_check.log",
    params:
        models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/figure_estimation_check.py"


rule ipd_all:
    input:
        ipd_targets(),
