# Collective-risk results (seed 000): Tables 3-5, Figs. 2-5 and S7, permutation tests, game
# bootstraps and Fermi selection, from the merged tables of rule crg_merge (rules/crg.smk).
# Needs from rules/crg.smk: CRG_JOBS. Tables are CSV + Markdown, figures PNG + PDF.
from workflow_scripts.crg.design.groups import analysis_conditions, mixed_models  # noqa: E402
from workflow_scripts.crg.design.settings import analysis_settings  # noqa: E402

try:
    CRG_ANALYSIS = analysis_settings(config) if CRG_JOBS else {}
except ConfigError as error:
    raise WorkflowError(f"config error: {error}") from None
CRG_GROUPS = analysis_conditions(CRG_JOBS)
CRG_MODELS = list(dict.fromkeys(m for job in CRG_JOBS for m in job.models))
CRG_SELECTION_MODELS = mixed_models(CRG_JOBS)
CRG_TABLE_NAMES = ["table3", "table4", "table5"]
CRG_FIGURE_NAMES = ["fig2", "fig3", "fig4", "fig5", "figS7"]
CRG_RESULTS = (
    [f"results/crg/tables/{t}.{ext}" for t in CRG_TABLE_NAMES for ext in ("csv", "md")]
    + [f"results/crg/figures/{f}.{ext}" for f in CRG_FIGURE_NAMES for ext in ("png", "pdf")]
    + [f"results/crg/selection/{name}" for name in ("payoffs.csv", "fixation.csv", "stationary.csv", "selection.md")]
)


rule crg_seats:
    input:
        games="results/crg/games.parquet",
        decisions="results/crg/decisions.parquet",
    output:
        "results/crg/seats.parquet",
    log:
        "logs/crg/seats.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/seats.py"


rule crg_selfplay:
    input:
        seats="results/crg/seats.parquet",
        decisions="results/crg/decisions.parquet",
    output:
        csv=report_item("results/crg/tables/table3.csv", "crg/selfplay/table3"),
        table=report_item("results/crg/tables/table3.md", "crg/selfplay/table3"),
        grid=report_item("results/crg/selfplay/grid.csv", "crg/selfplay/grid"),
        actions=report_item("results/crg/selfplay/actions.csv", "crg/selfplay/actions"),
        losses=report_item("results/crg/selfplay/losses.csv", "crg/selfplay/losses"),
    log:
        "logs/crg/selfplay.log",
    params:
        models=CRG_MODELS,
        grid=CRG_GROUPS["grid"],
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/selfplay.py"


rule crg_controls:
    input:
        seats="results/crg/seats.parquet",
    output:
        csv=report_item("results/crg/tables/table4.csv", "crg/controls/table4"),
        table=report_item("results/crg/tables/table4.md", "crg/controls/table4"),
    log:
        "logs/crg/controls.log",
    params:
        models=CRG_MODELS,
        grid=CRG_GROUPS["grid"],
        controls=CRG_GROUPS["controls"],
        resamples=CRG_ANALYSIS.get("permutation_resamples"),
        seed=CRG_ANALYSIS.get("seed"),
        shift_units=CRG_ANALYSIS.get("shift_units"),
        alpha=CRG_ANALYSIS.get("alpha"),
        family_alpha=CRG_ANALYSIS.get("family_alpha"),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/controls.py"


rule crg_partners:
    input:
        seats="results/crg/seats.parquet",
    output:
        csv=report_item("results/crg/tables/table5.csv", "crg/scripted/table5"),
        table=report_item("results/crg/tables/table5.md", "crg/scripted/table5"),
    log:
        "logs/crg/partners.log",
    params:
        models=CRG_MODELS,
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/partners.py"


rule crg_mixed:
    input:
        seats="results/crg/seats.parquet",
    output:
        pairs=report_item("results/crg/mixed/pairs.csv", "crg/mixed/pairs"),
        replacement=report_item("results/crg/mixed/replacement.csv", "crg/mixed/replacement"),
        contributions=report_item("results/crg/mixed/contributions.csv", "crg/mixed/contributions"),
    log:
        "logs/crg/mixed.log",
    params:
        models=CRG_SELECTION_MODELS,
        base_prompt=CRG_GROUPS["base_prompt"],
        confidence=CRG_ANALYSIS.get("confidence"),
        resamples=CRG_ANALYSIS.get("bootstrap_resamples"),
        seed=CRG_ANALYSIS.get("seed"),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/mixed.py"


rule crg_selection:
    input:
        seats="results/crg/seats.parquet",
    output:
        payoffs=report_item("results/crg/selection/payoffs.csv", "crg/selection/payoffs"),
        fixation=report_item("results/crg/selection/fixation.csv", "crg/selection/fixation"),
        stationary=report_item("results/crg/selection/stationary.csv", "crg/selection/stationary"),
        weighted=report_item("results/crg/selection/weighted.csv", "crg/selection/weighted"),
        skipped=report_item("results/crg/selection/skipped.csv", "crg/selection/skipped"),
        table=report_item("results/crg/selection/selection.md", "crg/selection/selection"),
    log:
        "logs/crg/selection.log",
    params:
        models=CRG_SELECTION_MODELS,
        base_prompt=CRG_GROUPS["base_prompt"],
        beta=CRG_ANALYSIS.get("beta"),
        population_sizes=CRG_ANALYSIS.get("population_sizes"),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/selection.py"


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
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/figures.py"


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
        models=CRG_SELECTION_MODELS,
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/figures.py"


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
        models=CRG_SELECTION_MODELS,
        beta=CRG_ANALYSIS.get("beta"),
        payoff_risks=CRG_ANALYSIS.get("payoff_risks"),
    conda:
        "../envs/analysis.yaml"
    script:
        "../workflow_scripts/scripts/crg/figures.py"


rule crg_all:
    input:
        [job.output(kind) for job in CRG_JOBS for kind in CRG_TABLES]
        if PARTIAL_RUN
        else [*rules.crg_merge.output, *(CRG_RESULTS if CRG_JOBS else [])],
