"""Config checks beyond the JSON schema, and readable schema errors (used by rules/common.smk)."""

from __future__ import annotations

from pathlib import Path

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.config.redaction import KEY_NAME_FIELD, WITHHELD, is_key_field, looks_like_key, redact

SELECTION_FIELDS = ("only_models", "only_conditions")


def explain_validation_error(error: Exception, config: dict | None = None) -> str:
    """One-paragraph message naming the config field that failed Snakemake's ``validate``.

    Snakemake wraps the ``jsonschema.ValidationError`` in a ``WorkflowError``; this finds it
    and says ``config field models.x.decoding.temperature: 5 is greater than the maximum of 2``
    plus what the schema expects there. The value of a key-like field (``api_key_env``,
    ``api_key``, ...) is never shown, and no secret value of ``config`` survives
    (workflow_scripts.config.redaction).
    """
    import jsonschema

    cause = error.__cause__ or error.__context__  # Snakemake raises inside `except ValidationError`
    if not isinstance(cause, jsonschema.ValidationError):
        return redact(f"config error: {error}", config or {})
    if cause.context:
        cause = jsonschema.exceptions.best_match(cause.context)
    path = [str(p) for p in cause.absolute_path]
    if cause.validator == "additionalProperties" and isinstance(cause.instance, dict):
        allowed = set((cause.schema or {}).get("properties") or {})
        unexpected = [k for k in cause.instance if k not in allowed]
        if len(unexpected) == 1:  # name the field itself: models.x.decoding.logprobs
            path.append(str(unexpected[0]))
    field = ".".join(path) or "(top level)"
    hint = cause.schema.get("description") if isinstance(cause.schema, dict) else None
    what = cause.message
    if any(is_key_field(p) for p in path):
        what = f"the value fails the schema's {cause.validator!r} rule ({WITHHELD})"
    message = f"config error in field {field}: {what}"
    if hint:
        message += f" (expected: {hint})"
    if path and path[0] in SELECTION_FIELDS and cause.validator == "type":
        message += (f". A --config value that looks like a number arrives as a number: {path[0]} takes names "
                    "(condition ids such as base or none-w=0.5, model names), not risks or other values; "
                    "risks are set in crg.designs.<design>.conditions.<name>.p")
    message += ". Fix it in the config file(s) (config/config.yaml and any --configfile) or the --config value; schema: config/schema/config.schema.yaml"
    return redact(message, config or {})


def names(value: str | list | None) -> list[str]:
    """Split a ``--config`` list given as 'a,b' (a string) or a YAML list into names."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [str(item).strip() for item in items if str(item).strip()]


def selection(config: dict) -> tuple[list[str], list[str]]:
    """Models to run and the condition filter, from ``models``, ``only_models``, ``only_conditions``.

    Enabled models run unless ``only_models`` names a subset; a model named there runs even
    if disabled (an explicit request), provided it exists.

    Returns:
        (model names, condition ids; [] means all conditions).

    Raises:
        ConfigError: unknown names, or no model selected.
    """
    models = config["models"]
    wanted = names(config.get("only_models"))
    unknown = [m for m in wanted if m not in models]
    if unknown:
        raise ConfigError(f"only_models: unknown model(s) {unknown}; configured: {sorted(models)}")
    selected = wanted or [m for m, entry in models.items() if entry.get("enabled")]
    if not selected:
        raise ConfigError("models: no model is enabled; set `enabled: true` on at least one model")
    conditions = names(config.get("only_conditions"))
    known = _all_condition_ids(config, selected)
    unknown = [c for c in conditions if c not in known]
    if unknown:
        raise ConfigError(f"only_conditions: unknown condition(s) {unknown}; known: {sorted(known)}")
    return selected, conditions


def study_models(config: dict, selected: list[str], study: str) -> list[str]:
    """Selected models that a study runs: all of them, or those in its optional ``<study>.models``.

    Raises:
        ConfigError: if ``<study>.models`` names a model that is not configured.
    """
    listed = config[study].get("models")
    if listed is None:
        return list(selected)
    unknown = [m for m in listed if m not in config["models"]]
    if unknown:
        raise ConfigError(f"{study}.models: unknown model(s) {unknown}; configured: {sorted(config['models'])}")
    return [m for m in selected if m in listed]


def _all_condition_ids(config: dict, models: list[str]) -> set[str]:
    from workflow_scripts.crg.design.jobs import planned_jobs
    from workflow_scripts.ipd.design.conditions import enabled_experiments, experiment_conditions

    ipd = config["ipd"]
    ipd_ids = {c.id for e in enabled_experiments(ipd) for c in experiment_conditions(ipd, e)}
    return ipd_ids | {job.condition.name for job in planned_jobs(config, models)}


def config_problems(config: dict, models: list[str], basedir: str | Path = ".") -> list[str]:
    """Problems of a schema-valid config that stop the run before any job, each naming the field.

    - ``models.<m>.api_key_env`` that looks like a key itself (the value is never repeated);
    - a credential among a selected model's parameters (``ModelSpec.check_no_secrets``);
    - ``ipd.experiments.<e>.payoffs`` that is not a prisoner's dilemma on a memory-1 / memory-2
      experiment, whose classification and tournaments need one;
    - ``crg.designs.<d>.conditions.<c>.template`` naming no template file, or one with an
      unknown placeholder.

    Args:
        models: the selected model names (see :func:`selection`).
        basedir: the workflow directory, against which ``crg.template_dir`` is resolved.

    Returns:
        One message per problem (empty if none).
    """
    return [
        *key_name_problems(config),
        *model_spec_problems(config, models),
        *payoff_problems(config),
        *crg_template_problems(config, models, basedir),
    ]


def key_name_problems(config: dict) -> list[str]:
    """``models.<m>.api_key_env`` values that look like keys (redaction.looks_like_key), unrepeated."""
    return [
        f"models.{name}.api_key_env: this looks like a key, not the NAME of an environment variable "
        f"({WITHHELD}). Remove it from the config file now (and revoke the key if the file was shared), "
        "export the key in your shell (e.g. export OPENAI_API_KEY=...) and write the variable's name here"
        for name, entry in config["models"].items()
        if entry.get(KEY_NAME_FIELD) is not None and looks_like_key(entry[KEY_NAME_FIELD])
    ]


def model_spec_problems(config: dict, models: list[str]) -> list[str]:
    """Selected models whose entry cannot become a ModelSpec (credentials in decoding / extra)."""
    problems = []
    for name in models:
        try:
            ModelSpec.from_config(name, config["models"][name])
        except ConfigError as error:
            problems.append(str(error))
    return problems


def payoff_problems(config: dict) -> list[str]:
    """Enabled memory-1 / memory-2 experiments whose ``payoffs`` are not a prisoner's dilemma.

    Their strategies are classified (Nash / partner / rival, seed 001 SI §6.2) and the memory-1
    ones enter the tournaments, which need aRL > aLL > aRR > aLR and 2 aLL > aRL + aLR
    (gametheory.payoffs.prisoners_dilemma_violation). Equal-gains experiments are exempt: their
    games x = 0 and x = 10 are not dilemmas by design (SI §4.3) and are reported as such.
    """
    from workflow_scripts.gametheory.payoffs import prisoners_dilemma_violation
    from workflow_scripts.ipd.design.conditions import enabled_experiments

    ipd = config["ipd"]
    problems = []
    for experiment in enabled_experiments(ipd):
        spec = ipd["experiments"][experiment]
        if spec["kind"] not in ("memory1", "memory2") or "payoffs" not in spec:
            continue
        violation = prisoners_dilemma_violation(spec["payoffs"])
        if violation:
            problems.append(
                f"ipd.experiments.{experiment}.payoffs: {spec['payoffs']} is not a prisoner's dilemma ({violation}); "
                f"a {spec['kind']} experiment's strategies are classified as Nash / partner / rival and enter "
                "tournaments, which need one. Give (a_LL, a_LR, a_RL, a_RR) in this order, e.g. [3, 0, 5, 1]"
            )
    return problems


def crg_template_problems(config: dict, models: list[str], basedir: str | Path = ".") -> list[str]:
    """Planned collective-risk conditions whose template is missing or has unknown placeholders."""
    from workflow_scripts.crg.design.jobs import crg_settings, job_templates, planned_jobs
    from workflow_scripts.crg.query.prompts import Prompter
    from workflow_scripts.llm.templates import TEMPLATE_SUFFIX

    problems = {}
    for job in planned_jobs(config, models):
        field = f"crg.designs.{job.design}.conditions.{job.condition.name}.template"
        try:
            Prompter(job.condition.template, job_templates(job, config, basedir), job.system_prompt)
        except ValueError as error:
            directory = Path(basedir) / crg_settings(config)["template_dir"]
            have = sorted(p.name.removesuffix(TEMPLATE_SUFFIX) for p in directory.glob(f"*{TEMPLATE_SUFFIX}"))
            problems[field] = f"{field}: {error}; templates in {directory}: {have}"
    return list(problems.values())
