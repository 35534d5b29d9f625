# Collective-risk dilemma, stage analysis (workflow_scripts/crg/analysis/): Tables 3-5, permutation tests, game
# bootstraps and Fermi selection, from the merged tables of rule crg_merge (rules/crg/query.smk); the
# study's target rule crg_all. Tables are CSV + Markdown. Needs the CRG grid (rules/crg/grid.smk).


rule crg_seats:
    input:
        games="results/crg/games.parquet",
        decisions="results/crg/decisions.parquet",
    output:
        "results/crg/seats.parquet",
    log:
        "logs/crg/seats.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/seats.py"


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
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_MODELS,
        grid=CRG_GROUPS["grid"],
        draws=CRG_ANALYSIS.get("game_bootstrap_draws"),
        seed=CRG_ANALYSIS.get("seed"),
        confidence=CRG_ANALYSIS.get("confidence"),
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/selfplay.py"


rule crg_controls:
    input:
        seats="results/crg/seats.parquet",
    output:
        csv=report_item("results/crg/tables/table4.csv", "crg/controls/table4"),
        table=report_item("results/crg/tables/table4.md", "crg/controls/table4"),
    log:
        "logs/crg/controls.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_MODELS,
        grid=CRG_GROUPS["grid"],
        controls=CRG_GROUPS["controls"],
        resamples=CRG_ANALYSIS.get("permutation_resamples"),
        seed=CRG_ANALYSIS.get("seed"),
        shift_units=CRG_ANALYSIS.get("shift_units"),
        alpha=CRG_ANALYSIS.get("alpha"),
        family_alpha=CRG_ANALYSIS.get("family_alpha"),
        rule=CRG_ANALYSIS.get("table4_rule"),
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/controls.py"


rule crg_partners:
    input:
        seats="results/crg/seats.parquet",
    output:
        csv=report_item("results/crg/tables/table5.csv", "crg/scripted/table5"),
        table=report_item("results/crg/tables/table5.md", "crg/scripted/table5"),
    log:
        "logs/crg/partners.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_MODELS,
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/partners.py"


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
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_SELECTION_MODELS,
        base_prompt=CRG_GROUPS["base_prompt"],
        confidence=CRG_ANALYSIS.get("confidence"),
        resamples=CRG_ANALYSIS.get("bootstrap_resamples"),
        seed=CRG_ANALYSIS.get("seed"),
        draws=CRG_ANALYSIS.get("game_bootstrap_draws"),
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/mixed.py"


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
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_SELECTION_MODELS,
        base_prompt=CRG_GROUPS["base_prompt"],
        beta=CRG_ANALYSIS.get("beta"),
        population_sizes=CRG_ANALYSIS.get("population_sizes"),
        draws=CRG_ANALYSIS.get("game_bootstrap_draws"),
        seed=CRG_ANALYSIS.get("seed"),
        confidence=CRG_ANALYSIS.get("confidence"),
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/selection.py"


rule crg_value_questions:
    input:
        questions="results/crg/questions.parquet",
        decisions="results/crg/decisions.parquet",
        seats="results/crg/seats.parquet",
    output:
        knowledge=report_item("results/crg/tables/knowledge.csv", "crg/controls/knowledge"),
        play=report_item("results/crg/tables/answers_and_play.csv", "crg/controls/answers_and_play"),
        answers=report_item("results/crg/tables/answers.csv", "crg/controls/answers"),
        knows=report_item("results/crg/tables/knows_vs_does.csv", "crg/controls/knows_vs_does"),
        table=report_item("results/crg/tables/value_questions.md", "crg/controls/value_questions_table"),
    log:
        "logs/crg/value_questions.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        models=CRG_MODELS,
        confidence=CRG_ANALYSIS.get("confidence"),
        resamples=CRG_ANALYSIS.get("permutation_resamples"),
        seed=CRG_ANALYSIS.get("seed"),
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/value_questions.py"


rule crg_replicator:
    input:
        payoffs="results/crg/selection/payoffs.csv",
        fixation="results/crg/selection/fixation.csv",
    output:
        csv=report_item("results/crg/selection/replicator.csv", "crg/selection/replicator"),
        table=report_item("results/crg/selection/replicator.md", "crg/selection/replicator"),
    log:
        "logs/crg/replicator.log",
    params:
        game=CRG_GAME,  # crg.game: the rules behind opt(p), p*, captions and labels
        background=CRG_ANALYSIS.get("replicator_background"),
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/crg/replicator.py"
