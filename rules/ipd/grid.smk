# The prisoner's-dilemma grid (the IPD paper): experiments x conditions x models (elicitation) or pairs
# (play), and the tables and figures each experiment gets (workflow_scripts/ipd/design/). Needs from
# rules/common.smk: the selection (SELECTED_MODELS, ONLY_CONDITIONS, PARTIAL_RUN), probability_capable.
from workflow_scripts.config.checks import study_models  # noqa: E402
from workflow_scripts.ipd.analysis.elicited_vs_played import elicited_condition  # noqa: E402
from workflow_scripts.ipd.design.conditions import STANDARD_PAYOFFS, analysis_settings, check_framing_groups, enabled_experiments, experiment_conditions, experiment_estimation, neutral_framings  # noqa: E402
from workflow_scripts.ipd.design.labels import STANDARD as STANDARD_LABELS  # noqa: E402
from workflow_scripts.ipd.design.pairs import model_pairs, pair_models  # noqa: E402
from workflow_scripts.ipd.query.prompts import kind_templates  # noqa: E402

# Template folders are part of the workflow: relative paths are read from the workflow directory.
IPD_TEMPLATE_DIR = Path(workflow.basedir) / config["ipd"]["template_dir"]

try:
    IPD_MODELS = study_models(config, SELECTED_MODELS, "ipd")
    IPD_EXPERIMENTS = enabled_experiments(config["ipd"])
    IPD_CONDITIONS = {e: experiment_conditions(config["ipd"], e) for e in IPD_EXPERIMENTS}
    check_framing_groups(config["ipd"])
    IPD_ANALYSIS = analysis_settings(config["ipd"])
except ConfigError as error:
    raise WorkflowError(redact(f"config error: {error}", config)) from None


def ipd_selected_conditions(experiment):
    """Conditions of an experiment, in config order, restricted by only_conditions."""
    return [c for c in IPD_CONDITIONS[experiment] if not ONLY_CONDITIONS or c.id in ONLY_CONDITIONS]


def ipd_condition_ids(experiment):
    """Condition ids of an experiment, restricted by only_conditions."""
    return [c.id for c in ipd_selected_conditions(experiment)]


def ipd_conditions(experiment):
    """The conditions an experiment's query job asks (restricted by only_conditions), as plain dicts in
    config order (Snakemake params: editing one reruns the experiment's query jobs)."""
    return [c.as_dict() for c in ipd_selected_conditions(experiment)]


def ipd_check_models():
    """IPD models that can estimate from log-probabilities (the estimation check asks them)."""
    return [m for m in IPD_MODELS if probability_capable(m, config["models"][m], list(config["custom_providers"]))]


def ipd_has_check(experiment):
    """True if the experiment gets the estimation check (ipd.analysis.estimation_check) and a model can take it."""
    return experiment in IPD_ANALYSIS["estimation_check"] and bool(ipd_check_models())


def ipd_query_files(experiment, folder, names, suffix):
    """results/ipd/<experiment>/<folder>/<name>.<suffix> of each query job name (a model or a pair); none
    for an experiment whose conditions only_conditions all leaves out (it has no query job)."""
    if not ipd_condition_ids(experiment):
        return []
    return [f"results/ipd/{experiment}/{folder}/{name}.{suffix}" for name in names]


def ipd_logprob_files(experiment, suffix="parquet"):
    """Per model files (one job each, every selected condition) of the estimation check's log-probability requests."""
    return ipd_query_files(experiment, "logprobs", ipd_check_models(), suffix)


def ipd_templates(experiment):
    """Texts of the templates a job of the experiment's kind renders (a template edit reruns it)."""
    return kind_templates(IPD_TEMPLATE_DIR, ipd_kind(experiment))


def ipd_answer_files(experiment, suffix="parquet"):
    """Per model answer files of one experiment (one elicitation job each, every selected condition)."""
    return ipd_query_files(experiment, "answers", IPD_MODELS, suffix)


def ipd_kind(experiment):
    """Kind of an experiment: memory1, memory2, one_shot or play."""
    return config["ipd"]["experiments"][experiment]["kind"]


def ipd_experiments_of(*kinds):
    """Enabled experiments of the given kinds, in config order."""
    return [e for e in IPD_EXPERIMENTS if ipd_kind(e) in kinds]


def ipd_game_files(experiment, suffix="parquet"):
    """Per pair game files of a play experiment (every pair incl. self-pairs; one job each, every selected condition)."""
    return ipd_query_files(experiment, "games", model_pairs(IPD_MODELS), suffix)


def ipd_elicited(experiment):
    """{play condition id: [elicitation experiment, its condition id]} of a play experiment: the
    memory-1 condition with the same framing and payoffs (workflow_scripts/ipd/analysis/elicited_vs_played.py)."""
    candidates = [c for e in ipd_experiments_of("memory1") for c in IPD_CONDITIONS[e]]
    matched = {c.id: elicited_condition(c, candidates) for c in IPD_CONDITIONS[experiment]}
    return {play: [found.experiment, found.id] for play, found in matched.items() if found is not None}


def ipd_elicited_estimates(wildcards):
    """The estimates tables the elicited-versus-played comparison of a play experiment reads."""
    return sorted({f"results/ipd/{e}/estimates.csv" for e, _ in ipd_elicited(wildcards.experiment).values()})


def ipd_figures(experiment):
    """Figure names (without extension) of an experiment, by its kind and design (Figs. 1-4)."""
    conditions = IPD_CONDITIONS[experiment]
    kind = ipd_kind(experiment)
    if kind == "play":
        return ["play"] + (["elicited_vs_played"] if ipd_elicited(experiment) else [])
    if kind == "memory2":
        return ["memory2", "payoff_range"]
    names = ["cooperation"] + (["payoff_range"] if kind == "memory1" else [])
    if kind == "memory1" and any(len({getattr(c, axis) for c in conditions}) > 1 for axis in ("w", "x")):
        names.append("parameters")
    if kind == "memory1" and len({c.framing for c in conditions}) > 1:
        names.append("framings")
    return names


def ipd_experiment_targets(experiment):
    """Tables and figures of one experiment."""
    kind = ipd_kind(experiment)
    if kind == "play":
        names = ["sequences.csv", "cooperation_by_round.csv", "last_round.csv", "tables/play.md"]
        if ipd_elicited(experiment):
            names += ["elicited_vs_played.csv", "elicited_vs_played_states.csv", "tables/elicited_vs_played.md"]
    else:
        names = ["strategies.csv", "invalid_rates.csv", "tables/counts.md", "tables/strategies.md"]
    if kind in ("memory1", "memory2"):
        names += ["classification.csv", "tables/classification.md", "confidence.csv"]
    if any(c.labels != STANDARD_LABELS for c in IPD_CONDITIONS[experiment]):
        names += ["label_swap.csv", "tables/label_swap.md"]
    if ipd_has_check(experiment):
        names += ["estimation_check.csv", "tables/estimation_check.md", "figures/estimation_check.png",
                  "figures/estimation_check.pdf"]
    names += [f"figures/{f}.{ext}" for f in ipd_figures(experiment) for ext in ("png", "pdf")]
    return [f"results/ipd/{experiment}/{name}" for name in names]


IPD_TOURNAMENT_FILES = ["summary.csv", "standings.csv", "matrices.csv", "wins.csv", "ties.csv", "propensities.csv",
                        "tables/tournaments.md", "replicator.csv", "tables/replicator.md"] + [f"figures/{name}.{ext}" for name in ("wins", "totals", "propensities")
                                                    for ext in ("png", "pdf")]


IPD_STUDY_FILES = ["decoding.csv", "decoding.md", "seed001_confidence.csv", "seed001_confidence.md", "reference_strategies_memory1.csv",
                   "reference_strategies_memory2.csv", "reference_strategies.md"]
"""Study-wide outputs under results/ipd/: Table S1 (decoding), Tables S2-S3 (references)."""


def ipd_targets():
    """Everything the study builds (the input of ipd_all, and so of `all`): answers only on partial runs,
    tables and figures otherwise.

    The IPD study builds nothing when it runs no model (ipd.models names no selected model).
    """
    targets = []
    if not IPD_MODELS:
        return targets
    for experiment in IPD_EXPERIMENTS:
        if PARTIAL_RUN:  # the query jobs only, the estimation check's among them (the plan counts them)
            targets += ipd_game_files(experiment) if ipd_kind(experiment) == "play" else ipd_answer_files(experiment)
            targets += ipd_logprob_files(experiment) if ipd_has_check(experiment) else []
            continue
        targets += ipd_experiment_targets(experiment)
    if not PARTIAL_RUN and ipd_experiments_of("memory1"):
        targets += [f"results/ipd/tournaments/{name}" for name in IPD_TOURNAMENT_FILES]
    if not PARTIAL_RUN:
        targets += [f"results/ipd/{name}" for name in IPD_STUDY_FILES]
    return targets
