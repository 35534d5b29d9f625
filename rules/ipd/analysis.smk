# Prisoner's-dilemma study, stage analysis (workflow_scripts/ipd/analysis/): counts, Wilson estimates and
# memory-1 / memory-2 strategies (label-swap answers mapped back first), the label-swap comparison, the
# estimation check, actual play, Nash / partner / rival classes (SI §6.2, Tables S27-S31), the round-robin
# tournaments (Fig. 5A, Figs. S1-S10) and Table S1 (decoding parameters sent, read from the cache).
# Needs the IPD grid (rules/ipd/grid.smk), IPD_ANALYSIS among it.


rule ipd_estimates:
    input:
        answers="results/ipd/{experiment}/answers.parquet",
    output:
        counts=report_item("results/ipd/{experiment}/counts.csv", "ipd/experiment/counts"),
        estimates=report_item("results/ipd/{experiment}/estimates.csv", "ipd/experiment/estimates"),
        strategies=report_item("results/ipd/{experiment}/strategies.csv", "ipd/experiment/strategies"),
        invalid=report_item("results/ipd/{experiment}/invalid_rates.csv", "ipd/experiment/invalid_rates"),
        readings=report_item("results/ipd/{experiment}/reading_confidence.csv", "ipd/experiment/reading_confidence"),
    log:
        "logs/ipd/{experiment}/estimates.log",
    params:
        conditions=lambda w: [c.as_dict() for c in IPD_CONDITIONS[w.experiment]],
        confidence=IPD_ANALYSIS["confidence"],
        use_extracted_answers=IPD_ANALYSIS["use_extracted_answers"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/estimates.py"


rule ipd_label_swap:
    input:
        counts="results/ipd/{experiment}/counts.csv",
    output:
        table=report_item("results/ipd/{experiment}/label_swap.csv", "ipd/experiment/label_swap"),
        markdown=report_item("results/ipd/{experiment}/tables/label_swap.md", "ipd/experiment/label_swap"),
    log:
        "logs/ipd/{experiment}/label_swap.log",
    params:
        alpha=IPD_ANALYSIS["label_swap_alpha"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/label_swap.py"


rule ipd_estimation_check:
    input:
        estimates="results/ipd/{experiment}/estimates.csv",
        logprobs="results/ipd/{experiment}/logprob_answers.parquet",
    output:
        csv=report_item("results/ipd/{experiment}/estimation_check.csv", "ipd/experiment/estimation_check"),
        table=report_item("results/ipd/{experiment}/tables/estimation_check.md", "ipd/experiment/estimation_check"),
    log:
        "logs/ipd/{experiment}/estimation_check.log",
    params:
        labels=lambda w: {c.id: c.labels for c in IPD_CONDITIONS[w.experiment]},
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/estimation_check.py"


rule ipd_play_analysis:
    input:
        moves="results/ipd/{experiment}/moves.parquet",
    output:
        sequences=report_item("results/ipd/{experiment}/sequences.csv", "ipd/experiment/play_sequences"),
        by_round=report_item("results/ipd/{experiment}/cooperation_by_round.csv", "ipd/experiment/play_by_round"),
        last_round=report_item("results/ipd/{experiment}/last_round.csv", "ipd/experiment/play_last_round"),
        table=report_item("results/ipd/{experiment}/tables/play.md", "ipd/experiment/play"),
    log:
        "logs/ipd/{experiment}/play_analysis.log",
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/play_analysis.py"


rule ipd_classify:
    input:
        strategies="results/ipd/{experiment}/strategies.csv",
        counts="results/ipd/{experiment}/counts.csv",
    output:
        classes=report_item("results/ipd/{experiment}/classification.csv", "ipd/experiment/classification"),
        table=report_item("results/ipd/{experiment}/tables/classification.md", "ipd/experiment/classification"),
        confidence=report_item("results/ipd/{experiment}/confidence.csv", "ipd/experiment/confidence"),
    log:
        "logs/ipd/{experiment}/classify.log",
    params:
        ws=IPD_ANALYSIS["classify_w"],
        random_opponents=IPD_ANALYSIS["random_opponents"],
        seed=IPD_ANALYSIS["seed"],
        confidence=IPD_ANALYSIS["confidence"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/classify.py"


rule ipd_tournament:
    input:
        strategies=lambda w: [f"results/ipd/{e}/strategies.csv" for e in ipd_experiments_of("memory1")],
        counts=lambda w: [f"results/ipd/{e}/counts.csv" for e in ipd_experiments_of("memory1")],
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
        neutral=neutral_framings(config["ipd"]),
        w=IPD_ANALYSIS["tournament_w"],
        references=IPD_ANALYSIS["tournament_references"],
        confidence=IPD_ANALYSIS["confidence"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/tournament.py"


rule ipd_replicator:
    input:
        matrices="results/ipd/tournaments/matrices.csv",
    output:
        csv=report_item("results/ipd/tournaments/replicator.csv", "ipd/tournaments/replicator"),
        table=report_item("results/ipd/tournaments/tables/replicator.md", "ipd/tournaments/replicator"),
    log:
        "logs/ipd/replicator.log",
    params:
        replicator=IPD_ANALYSIS["replicator"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/replicator.py"


rule ipd_decoding:
    input:
        answers=lambda w: [f"results/ipd/{e}/answers.parquet" for e in ipd_experiments_of("memory1", "memory2", "one_shot")]
        + [f"results/ipd/{e}/moves.parquet" for e in ipd_experiments_of("play")],
    output:
        csv=report_item("results/ipd/decoding.csv", "ipd/study/decoding"),
        table=report_item("results/ipd/decoding.md", "ipd/study/decoding"),
    log:
        "logs/ipd/decoding.log",
    params:
        cache_dir=config["cache"]["dir"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/decoding.py"


rule ipd_seed001_confidence:
    output:
        csv=report_item("results/ipd/seed001_confidence.csv", "ipd/study/seed001_confidence"),
        table=report_item("results/ipd/seed001_confidence.md", "ipd/study/seed001_confidence"),
    log:
        "logs/ipd/seed001_confidence.log",
    params:
        ws=IPD_ANALYSIS["classify_w"],
        confidence=IPD_ANALYSIS["confidence"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/seed_confidence.py"


rule ipd_elicited_vs_played:
    input:
        moves="results/ipd/{experiment}/moves.parquet",
        estimates=ipd_elicited_estimates,
    output:
        summary=report_item("results/ipd/{experiment}/elicited_vs_played.csv", "ipd/experiment/elicited_vs_played"),
        states=report_item("results/ipd/{experiment}/elicited_vs_played_states.csv",
                           "ipd/experiment/elicited_vs_played_states"),
        table=report_item("results/ipd/{experiment}/tables/elicited_vs_played.md",
                          "ipd/experiment/elicited_vs_played_table"),
    log:
        "logs/ipd/{experiment}/elicited_vs_played.log",
    params:
        matched=lambda w: ipd_elicited(w.experiment),
        payoffs=lambda w: list(IPD_CONDITIONS[w.experiment][0].payoffs),
        test=IPD_ANALYSIS["elicited_vs_played"],
    conda:
        "../../envs/analysis.yaml"
    script:
        "../../workflow_scripts/scripts/ipd/elicited_vs_played.py"
