# Config validation, pre-flight checks and the design-grid functions used by every rule file.
import ast
import contextlib
import functools
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

sys.path.insert(0, workflow.basedir)  # workflow_scripts importable even without `pip install -e .`

from workflow_scripts.config.checks import SELECTION_FIELDS, explain_validation_error, study_models  # noqa: E402
from workflow_scripts.config.schema import defaults  # noqa: E402
from workflow_scripts.crg.design.groups import analysis_conditions, mixed_models  # noqa: E402
from workflow_scripts.crg.design.jobs import find_job, job_templates, planned_jobs  # noqa: E402
from workflow_scripts.crg.query.prompts import PROMPT_LAYOUT as CRG_PROMPT_LAYOUT  # noqa: E402
from workflow_scripts.crg.design.settings import analysis_settings as crg_analysis_settings, crg_settings, game_block  # noqa: E402
from workflow_scripts.workflow.checks import config_problems, idle_warnings, selection, served_together_warnings  # noqa: E402
from workflow_scripts.ipd.design.conditions import STANDARD_PAYOFFS, analysis_settings, check_framing_groups, enabled_experiments, experiment_conditions, experiment_estimation, neutral_framings  # noqa: E402
from workflow_scripts.ipd.design.labels import STANDARD as STANDARD_LABELS  # noqa: E402
from workflow_scripts.ipd.design.pairs import model_pairs, pair_models  # noqa: E402
from workflow_scripts.ipd.analysis.elicited_vs_played import elicited_condition  # noqa: E402
from workflow_scripts.errors import ConfigError  # noqa: E402
from workflow_scripts.ipd.query.prompts import kind_templates  # noqa: E402
from workflow_scripts.llm import (  # noqa: E402
    answer_entry, Budget, mark_run, probability_capable, Runtime, ServeSpec, stop_jobs_on_signals, stop_run,
)
from workflow_scripts.scripts.warm import start as start_warm  # noqa: E402
from workflow_scripts.workflow.providers import (  # noqa: E402
    DRY_RUN_CONNECT_TIMEOUT_S, provider_problems, server_kind_hints, start_problems)
from workflow_scripts.config.redaction import redact  # noqa: E402
from workflow_scripts.reporting import placement  # noqa: E402

try:
    validate(config, "../config/schema/config.schema.yaml")
except WorkflowError as error:
    raise WorkflowError(explain_validation_error(error, config)) from None
for _field in SELECTION_FIELDS:  # `--config only_models=` arrives as None: the same as "", and so the same params
    config[_field] = config.get(_field) or ""

# Template folders are part of the workflow: relative paths are read from the workflow directory.
IPD_TEMPLATE_DIR = Path(workflow.basedir) / config["ipd"]["template_dir"]
MODEL_DEFAULTS = defaults("model")  # model entries are not filled by validate (additionalProperties)

try:
    RUNTIME = Runtime.from_config(config).as_params()  # answer_extraction checked here, before any job
    SELECTED_MODELS, ONLY_CONDITIONS = selection(config)
    IPD_MODELS = study_models(config, SELECTED_MODELS, "ipd")
    IPD_EXPERIMENTS = enabled_experiments(config["ipd"])
    IPD_CONDITIONS = {e: experiment_conditions(config["ipd"], e) for e in IPD_EXPERIMENTS}
    check_framing_groups(config["ipd"])
    IPD_ANALYSIS = analysis_settings(config["ipd"])
except ConfigError as error:
    raise WorkflowError(redact(f"config error: {error}", config)) from None
for _warning in idle_warnings(config, SELECTED_MODELS) + served_together_warnings(config, SELECTED_MODELS) if workflow.is_main_process else []:
    logger.warning(f"warning: {_warning}")
SERVED_MODELS = [m for m in SELECTED_MODELS if config["models"][m].get("serve")]


def stop_if(problems, what="config error"):
    """Refuse to go on, listing every problem (each names its config field; keys are withheld)."""
    if problems:
        raise WorkflowError(redact(f"{what} (nothing was run):\n  - " + "\n  - ".join(problems), config))


# Checked in every process that reads the workflow; the provider checks (litellm, 3-15 s) in the
# main one only. Missing keys and packages and an api_base where nothing listens: warnings in a dry
# run (one 1 s connect), refusal at the start of a real run (workflow_scripts/workflow/providers.py).
stop_if(config_problems(config, SELECTED_MODELS, workflow.basedir))
stop_if(provider_problems(config, SELECTED_MODELS) if workflow.is_main_process else [])
_DRY_RUN = workflow.output_settings.dryrun and workflow.is_main_process
for _problem in start_problems(config, SELECTED_MODELS, DRY_RUN_CONNECT_TIMEOUT_S) if _DRY_RUN else []:
    logger.warning(redact(f"warning (a real run stops here): {_problem}", config))
for _hint in server_kind_hints(config, SELECTED_MODELS) if _DRY_RUN else []:
    logger.warning(redact(f"warning: {_hint}", config))


RUN = {}  # a local run's mark: its query jobs share their embedded servers (workflow_scripts/llm/serving/run_servers.py)


onstart:
    stop_if(start_problems(config, SELECTED_MODELS) + served_partition_problems(), "cannot start")
    for _hint in server_kind_hints(config, SELECTED_MODELS):
        logger.warning(redact(f"warning: {_hint}", config))
    if workflow.local_exec:  # jobs on cluster nodes start their own, on their node
        RUN.update(mark_run())
        start_warm(RUN)  # analysis and figure jobs fork from one interpreter that has their imports
        stop_jobs_on_signals(RUN)  # kill -INT / kill <pid> of Snakemake alone: its jobs stop asking


onsuccess:
    stop_run(RUN)


onerror:
    stop_run(RUN)

PARTIAL_RUN = bool(config.get("only_models")) or bool(ONLY_CONDITIONS)


wildcard_constraints:
    model="|".join(map(re.escape, config["models"])) if config["models"] else "NONE",
    experiment="[a-z0-9_]+",
    condition="[A-Za-z0-9_.=-]+",


def report_item(path, caption):
    """``path`` as an item of the Snakemake report, with the caption file report/<caption>.rst, whose
    study and group folders are its category and subcategory (workflow_scripts/reporting.py)."""
    where = placement(workflow.basedir, caption)
    return report(path, caption=where.caption, category=where.category, subcategory=where.subcategory)
PLAN = "results/plan.csv"


def plan_config():
    """The config as it shapes the plan: without the embedded server's settings and the budgets
    (raising a budget must rerun only the jobs it stopped), its sections in sorted order (a --config
    value puts its key first, which must not read as a change of params)."""
    shaping = {key: config[key] for key in sorted(config) if key not in ("embedded", "budget_usd")}
    shaping["models"] = {name: {k: v for k, v in entry.items() if k != "budget_usd"}
                         for name, entry in config["models"].items()}
    return shaping


def plan_templates():
    """The prompt template files of both studies (the plan renders every prompt)."""
    folders = [IPD_TEMPLATE_DIR, Path(workflow.basedir) / CRG_SETTINGS["template_dir"]]
    return sorted(str(path) for folder in folders for path in folder.glob("*.txt"))


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


def model_params(model, decoding=None, estimation=None):
    """Everything about a model that shapes its answers, for a query job's params: its config
    entry (schema defaults filled in), the identity of what serves it, and ``decoding`` /
    ``estimation`` overrides."""
    return answer_entry(model, config["models"][model], decoding, estimation, list(config["custom_providers"]))


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


def is_embedded(model):
    """1 if the pipeline runs the model's server (the embedded model, a served one), else 0: resource
    embedded_llm, the jobs at once on this machine's servers."""
    entry = config["models"][model]
    return int(bool(entry.get("embedded") or entry.get("serve")))


def api_calls(models, conditions=1):
    """Provider calls one query job keeps in flight (resource api_calls, capped in the profiles): the sum of
    its models' max_concurrency per condition it asks (as many as one job per condition had); a model whose
    server the pipeline runs (embedded, served) counts 0. Snakemake lowers it to the cap, and the job keeps in
    flight what it was granted (workflow_scripts/llm/providers/limits.py, job_slots)."""
    per_condition = sum(0 if is_embedded(m) else int(config["models"][m].get("max_concurrency", MODEL_DEFAULTS["max_concurrency"])) for m in dict.fromkeys(models))
    return per_condition * conditions


def on_cluster():
    """True where Snakemake submits the jobs to a cluster: its main process there, and the job on the node
    (a dry run is local: it shows no server jobs)."""
    return not workflow.local_exec or workflow.remote_exec


def served_inputs(models):
    """The address files of the servers of a query job's served models: on a cluster, Snakemake's service jobs
    (rules/serve.smk), which it runs beside the job in one SLURM job; none on this machine (the run starts them)."""
    if not on_cluster():
        return []
    return [f"results/servers/{m}.json" for m in dict.fromkeys(models) if m in SERVED_MODELS]


@functools.cache
def serve_spec(model):
    """The ServeSpec of a served model (workflow_scripts/llm/serving/spec.py)."""
    return ServeSpec.from_entry(model, model_params(model))


def serve_spec_json(model):
    return serve_spec(model).to_json()


def serve_resources(model):
    """models.<model>.serve.resources, defaults filled in: what its server job asks SLURM for."""
    from workflow_scripts.config.schema import model_entry

    return model_entry(model, config["models"][model])["serve"]["resources"]


def served_partition(models):
    """slurm_partition of a job: on a cluster, the partition of its served model's server (the two are one
    SLURM job): models.<model>.serve.resources.partition, else the profile's serve_partition (the GPU
    partition, profiles/slurm); else, and for every other job, the profile's slurm_partition, else none."""
    for model in dict.fromkeys(models):
        if on_cluster() and model in SERVED_MODELS:
            partition = serve_resources(model)["partition"] or default_resource("serve_partition")
            if partition:
                return partition
    return default_resource("slurm_partition")


QUERY_RULES = ("ipd_elicit", "ipd_logprobs", "ipd_play", "crg_play")


def served_partition_problems():
    """set-resources that would send query rules to another partition than their served model's server
    (on a cluster the server and its query jobs are one SLURM job: Snakemake would refuse the group later)."""
    overwritten = [rule for rule, resources in (workflow.resource_settings.overwrite_resources or {}).items()
                   if rule in QUERY_RULES and "slurm_partition" in resources]
    if not (on_cluster() and SERVED_MODELS and overwritten):
        return []
    return [f"set-resources of {', '.join(overwritten)}: slurm_partition would move the query jobs of the served "
            f"model(s) {SERVED_MODELS} too, which run in their server's SLURM job and its partition; drop it (a served "
            "model's query jobs need no network), or run the served models apart (--config only_models=...)"]


def default_resource(name):
    """The value of resource ``name`` in --default-resources (a profile's default-resources), or None; read
    as Snakemake reads it (a Python literal, else the text)."""
    for item in getattr(workflow.resource_settings.default_resources, "args", None) or []:
        key, _, value = item.partition("=")
        if key == name:
            with contextlib.suppress(ValueError, SyntaxError):
                return ast.literal_eval(value)
            return value
    return None
def budget_usd(*models):
    """The spend caps of a query job's models (budget_usd overall and per model) as a resource: a
    JSON string. Not a param: the budget shapes no answer, so raising it reruns only the jobs it stopped."""
    return Budget.of_config(config, models).to_json()


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


def all_targets():
    """Everything the default target (`all`) builds: the spend plan; answers only on partial runs, tables and
    figures otherwise.

    The IPD study builds nothing when it runs no model (ipd.models names no selected model).
    """
    targets = [PLAN] if not PARTIAL_RUN else []
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


# The collective-risk grid (the CRG paper's Table 2): one play job per lineup x design x condition
# (workflow_scripts/crg/design/), and what each analysis reads. Lineup: a model name, or "a+b" for the
# two models of a mixed table (design 4).
CRG_SETTINGS = crg_settings(config) if "crg" in config else defaults("crg")
CRG_JOBS = planned_jobs(config, SELECTED_MODELS, ONLY_CONDITIONS)
try:
    CRG_ANALYSIS = crg_analysis_settings(config) if CRG_JOBS else {}
    CRG_GAME = game_block(config) if "crg" in config else defaults("crg", "game")  # the game's rules: a param
except ConfigError as error:
    raise WorkflowError(f"config error: {error}") from None
CRG_TABLES = ["decisions", "games", "questions"]
CRG_GROUPS = analysis_conditions(CRG_JOBS)
CRG_MODELS = list(dict.fromkeys(m for job in CRG_JOBS for m in job.models))
CRG_SELECTION_MODELS = mixed_models(CRG_JOBS)
CRG_TABLE_NAMES = ["table3", "table4", "table5"]
CRG_FIGURE_NAMES = ["fig2", "fig3", "fig4", "fig5", "figS7", "value_questions"]
CRG_VALUE_TABLES = ["knowledge.csv", "answers_and_play.csv", "answers.csv", "knows_vs_does.csv", "value_questions.md"]
CRG_RESULTS = (
    [f"results/crg/tables/{t}.{ext}" for t in CRG_TABLE_NAMES for ext in ("csv", "md")]
    + [f"results/crg/tables/{t}" for t in CRG_VALUE_TABLES]
    + [f"results/crg/figures/{f}.{ext}" for f in CRG_FIGURE_NAMES for ext in ("png", "pdf")]
    + [f"results/crg/selection/{name}" for name in ("payoffs.csv", "fixation.csv", "stationary.csv", "selection.md",
                                                    "replicator.csv", "replicator.md")]
)
RUN_MODELS = [m for m in config["models"] if m in {*IPD_MODELS, *CRG_MODELS}]
"""The run's models in config order: every figure job gets them (params.models), so that a model keeps its
colour in every figure of the run (workflow_scripts/figure_style.py)."""


def crg_job(wildcards):
    """The planned CRG job of a crg_play job's wildcards."""
    return find_job(config, SELECTED_MODELS, wildcards.design, wildcards.lineup, wildcards.condition)
