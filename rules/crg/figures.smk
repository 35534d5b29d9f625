# Collective-risk dilemma, stage figures (workflow_scripts/crg/figures/): Figs. 2-5 and S7, PNG + PDF, in the
# style of workflow_scripts/figure_style.py (params.run_models: the run's models, config order, fix each
# model's colour); and the study's target rule crg_all. Needs the CRG grid (rules/crg/grid.smk).


rule crg_figure_selfplay:
    input:
        grid="results/crg/selfplay/grid.csv",
        actions="results/crg/selfplay/actions.csv",
        losses="results/crg/selfplay/losses.csv",
    output:
        png=report_item("results/crg/figures/fig2.png", "crg/selfplay/fig2"),
        pdf="results/crg/figures/fig2.pdf",
    log:
        "logs/crg/figure_selfplay.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/figure_selfplay.py"


rule crg_figures_mixed:
    input:
        pairs="results/crg/mixed/pairs.csv",
        replacement="results/crg/mixed/replacement.csv",
        contributions="results/crg/mixed/contributions.csv",
    output:
        fig3_png=report_item("results/crg/figures/fig3.png", "crg/mixed/fig3"),
        fig3_pdf="results/crg/figures/fig3.pdf",
        fig4_png=report_item("results/crg/figures/fig4.png", "crg/mixed/fig4"),
        fig4_pdf="results/crg/figures/fig4.pdf",
    log:
        "logs/crg/figures_mixed.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_SELECTION_MODELS,
        run_models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/figures_mixed.py"


rule crg_figures_selection:
    input:
        payoffs="results/crg/selection/payoffs.csv",
        fixation="results/crg/selection/fixation.csv",
        stationary="results/crg/selection/stationary.csv",
        weighted="results/crg/selection/weighted.csv",
    output:
        fig5_png=report_item("results/crg/figures/fig5.png", "crg/selection/fig5"),
        fig5_pdf="results/crg/figures/fig5.pdf",
        figS7_png=report_item("results/crg/figures/figS7.png", "crg/selection/figS7"),
        figS7_pdf="results/crg/figures/figS7.pdf",
    log:
        "logs/crg/figures_selection.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_SELECTION_MODELS,
        beta=CRG_ANALYSIS.get("beta"),
        payoff_risks=CRG_ANALYSIS.get("payoff_risks"),
        run_models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/figures_selection.py"


rule crg_figure_value_questions:
    input:
        answers="results/crg/tables/answers.csv",
        knowledge="results/crg/tables/knowledge.csv",
    output:
        png=report_item("results/crg/figures/value_questions.png", "crg/controls/value_questions"),
        pdf="results/crg/figures/value_questions.pdf",
    log:
        "logs/crg/figure_value_questions.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_MODELS,
        run_models=RUN_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/figure_value_questions.py"


rule crg_all:
    input:
        [job.output(kind) for job in CRG_JOBS for kind in CRG_TABLES]
        if PARTIAL_RUN
        else [*rules.crg_merge.output, *(CRG_RESULTS if CRG_JOBS else [])],
