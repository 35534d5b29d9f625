# Config validation, pre-flight checks and the functions every study's rule files share; what spans the
# studies (their models, query rules, report categories) comes from the registry
# (workflow_scripts/registry.py). Each study's design grid is its rules/<study>/grid.smk.
import ast
import contextlib
import functools
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

sys.path.insert(0, workflow.basedir)  # workflow_scripts importable even without `pip install -e .`

from workflow_scripts.config.checks import SELECTION_FIELDS, explain_validation_error  # noqa: E402
from workflow_scripts.config.schema import defaults  # noqa: E402
from workflow_scripts.workflow.checks import config_problems, idle_warnings, selection, served_together_warnings  # noqa: E402
from workflow_scripts.errors import ConfigError  # noqa: E402
from workflow_scripts.llm import (  # noqa: E402
    answer_entry, Budget, mark_run, probability_capable, Runtime, ServeSpec, stop_jobs_on_signals, stop_run,
)
from workflow_scripts.scripts.warm import start as start_warm  # noqa: E402
from workflow_scripts.workflow.providers import (  # noqa: E402
    DRY_RUN_CONNECT_TIMEOUT_S, provider_problems, server_kind_hints, start_problems)
from workflow_scripts.config.redaction import redact  # noqa: E402
from workflow_scripts.registry import STUDIES, report_categories  # noqa: E402
from workflow_scripts.reporting import placement  # noqa: E402

try:
    validate(config, "../config/schema/config.schema.yaml")
except WorkflowError as error:
    raise WorkflowError(explain_validation_error(error, config)) from None
for _field in SELECTION_FIELDS:  # `--config only_models=` arrives as None: the same as "", and so the same params
    config[_field] = config.get(_field) or ""

MODEL_DEFAULTS = defaults("model")  # model entries are not filled by validate (additionalProperties)

try:
    RUNTIME = Runtime.from_config(config).as_params()  # answer_extraction checked here, before any job
    SELECTED_MODELS, ONLY_CONDITIONS = selection(config)
    STUDY_MODELS = {study.name: study.models(config, SELECTED_MODELS, ONLY_CONDITIONS) for study in STUDIES}  # the models each asks
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
REPORT_CATEGORIES = report_categories()  # caption folder -> report category (workflow_scripts/reporting.py)


wildcard_constraints:
    model="|".join(map(re.escape, config["models"])) if config["models"] else "NONE",
    experiment="[a-z0-9_]+",
    condition="[A-Za-z0-9_.=-]+",


def report_item(path, caption):
    """``path`` as an item of the Snakemake report, with the caption file report/<caption>.rst, whose
    study and group folders are its category and subcategory (workflow_scripts/reporting.py)."""
    where = placement(workflow.basedir, caption, REPORT_CATEGORIES)
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
    """The prompt template files of every study (the plan renders every prompt)."""
    folders = [folder for study in STUDIES for folder in study.template_dirs(config, Path(workflow.basedir))]
    return sorted(str(path) for folder in folders for path in folder.glob("*.txt"))


def model_params(model, decoding=None, estimation=None):
    """Everything about a model that shapes its answers, for a query job's params: its config
    entry (schema defaults filled in), the identity of what serves it, and ``decoding`` /
    ``estimation`` overrides."""
    return answer_entry(model, config["models"][model], decoding, estimation, list(config["custom_providers"]))


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


QUERY_RULES = tuple(rule for study in STUDIES for rule in study.query_rules)
"""The rules that call a model, of every study."""


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


RUN_MODELS = [m for m in config["models"] if any(m in models for models in STUDY_MODELS.values())]
"""The run's models in config order: every figure job gets them (params.models), so that a model keeps its
colour in every figure of the run (workflow_scripts/figure_style.py)."""

